"""The SDK client's callbacks for what a server asks (roots, elicitation, sampling), made from
the session's `ClientSide`: each one declared only when the session answers it. Imported with
the SDK, by a connection to a server reached through it."""

from __future__ import annotations

from typing import Any

from mcp.types import (
    INTERNAL_ERROR,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitResult,
    ErrorData,
    ListRootsResult,
    Root,
    TextContent,
)
from pydantic import FileUrl

from tether.mcp.client_side import ClientSide, Elicitation, Refused, SamplingRequest

REFUSED = -1
"""The JSON-RPC error code of a request the user or the rules refused (as the SDK's examples)."""


def answers(server: str, side: ClientSide) -> dict[str, Any]:
    """The `Client` keyword arguments that answer `server`'s requests as `side` says."""
    callbacks: dict[str, Any] = {}
    if side.roots:

        async def list_roots(context: Any) -> ListRootsResult:
            del context  # the roots of the moment: they may change (set_roots)
            return ListRootsResult(
                roots=[Root(uri=FileUrl(p.as_uri()), name=p.name) for p in side.roots]
            )

        callbacks["list_roots_callback"] = list_roots
    elicit = side.elicit
    if elicit is not None:

        async def elicitation(
            context: Any, params: ElicitRequestParams
        ) -> ElicitResult | ErrorData:
            del context
            if isinstance(params, ElicitRequestFormParams):
                asked = Elicitation(server, params.message, dict(params.requested_schema))
            else:
                asked = Elicitation(
                    server, params.message, url=params.url, elicitation_id=params.elicitation_id
                )
            try:
                said = await elicit(asked)
            except Refused as exc:
                return ErrorData(code=REFUSED, message=str(exc))
            return ElicitResult(action=said.action, content=said.content)

        callbacks["elicitation_callback"] = elicitation
    sample = side.sample
    if sample is not None:

        async def sampling(
            context: Any, params: CreateMessageRequestParams
        ) -> CreateMessageResult | ErrorData:
            del context
            try:
                said = await sample(_sampling_request(server, params))
            except Refused as exc:
                return ErrorData(code=REFUSED, message=str(exc))
            except Exception as exc:  # the model failed: the server hears why
                return ErrorData(code=INTERNAL_ERROR, message=f"sampling failed: {exc}")
            return CreateMessageResult(
                role="assistant",
                content=TextContent(type="text", text=said.text),
                model=said.model,
                stop_reason=said.stop_reason,
            )

        callbacks["sampling_callback"] = sampling
    return callbacks


def _sampling_request(server: str, params: CreateMessageRequestParams) -> SamplingRequest:
    """The request's messages as text (an image or audio part is named, not sent)."""
    messages: list[tuple[Any, str]] = []
    for message in params.messages:
        parts = message.content if isinstance(message.content, list) else [message.content]
        said = [p.text if isinstance(p, TextContent) else f"[{p.type} content]" for p in parts]
        messages.append((message.role, "\n".join(said)))
    return SamplingRequest(
        server=server,
        messages=tuple(messages),
        max_tokens=params.max_tokens,
        system=params.system_prompt,
    )
