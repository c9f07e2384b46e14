"""How `FakeModelServer` answers on the wire, apart from its state: a request's body parsed,
an answer rendered in the request's wire format, a refusal's status, body and headers, the
request id header, a scripted web search checked against the tools offered."""

from __future__ import annotations

import json
import math
import time
from typing import Any, cast

from tether.testing import anthropic_wire, openai_wire
from tether.testing.recorded import RecordedRequest
from tether.testing.request_rules import Rejection, lone_surrogate
from tether.testing.script import HttpError, Reply, WebSearchPart

RETRYABLE_STATUSES = frozenset({408, 409, 429})


def rendered(
    record: RecordedRequest,
    reply: Reply,
    *,
    stream: bool,
    usage: dict[str, int],
    tool_ids: list[str],
    number: int,
    cache_details: bool = True,
) -> Any:
    """The events of a streamed answer (list of bytes), or the whole answer (dict), in the
    request's wire format (`cache_details`: an OpenAI answer names its cached tokens)."""
    body = record.body
    model = str(body.get("model", ""))
    if record.wire == "openai":
        completion_id, created = f"chatcmpl-{number}", int(time.time())
        if not stream:
            return openai_wire.whole_completion(
                reply,
                completion_id=completion_id,
                model=model,
                created=created,
                usage=usage,
                tool_ids=tool_ids,
                cache_details=cache_details,
            )
        options = body.get("stream_options")
        include_usage = isinstance(options, dict) and options.get("include_usage") is True
        return openai_wire.stream_events(
            reply,
            completion_id=completion_id,
            model=model,
            created=created,
            usage=usage,
            tool_ids=tool_ids,
            include_usage=include_usage,
            cache_details=cache_details,
        )
    sequences = body.get("stop_sequences")
    stop_sequence = None
    if reply.final_stop_reason() == "stop_sequence" and isinstance(sequences, list):
        stop_sequence = next(iter(cast(list[str], sequences)), None)
    render = anthropic_wire.stream_events if stream else anthropic_wire.whole_message
    return render(
        reply,
        message_id=f"msg_{number}",
        model=model,
        usage=usage,
        tool_ids=tool_ids,
        stop_sequence=stop_sequence,
    )


def error_reply(
    record: RecordedRequest,
    rejection: Rejection,
    retry_after_ms: float = 0.0,
    retry_after: str | None = None,
) -> tuple[int, dict[str, Any], dict[str, str]]:
    """The status, body and headers of a refusal in the request's wire format; a retryable
    one says when to retry (`retry-after-ms` 0 means at once)."""
    headers = request_id_header(record)
    if retry_after is not None:
        headers["retry-after"] = retry_after
    elif rejection.status in RETRYABLE_STATUSES or rejection.status >= 500:
        # Both SDKs treat a zero wait as "not given" and back off ~0.5 s; 0 means "at once".
        headers["retry-after-ms"] = str(retry_after_ms if retry_after_ms > 0 else 0.001)
        headers["retry-after"] = str(math.ceil(retry_after_ms / 1000))
    if record.wire == "anthropic":
        body = anthropic_wire.error_body(
            rejection.error_type, rejection.message, headers["request-id"]
        )
    else:
        body = openai_wire.error_body(
            rejection.message, rejection.error_type, rejection.param, rejection.code
        )
    return rejection.status, body, headers


def parse_body(raw: bytes) -> tuple[dict[str, Any], str | None]:
    """The JSON object of a request body, or {} and the API's complaint."""
    try:
        value = json.loads(raw or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError):
        return {}, "There was an error parsing the body: invalid JSON"
    if not isinstance(value, dict):
        return {}, "Input should be a valid dictionary or object"
    body = cast(dict[str, Any], value)
    return body, lone_surrogate(raw, body)


def scripted_rejection(error: HttpError) -> Rejection:
    code = "rate_limit_exceeded" if error.status == 429 else None
    return Rejection(error.message, error.status, error.error_type, code=code)


def request_id_header(record: RecordedRequest) -> dict[str, str]:
    request_id = f"req_{record.index}"
    name = "request-id" if record.wire == "anthropic" else "x-request-id"
    return {name: request_id}


def searched_only_if_offered(
    record: RecordedRequest, turn: Reply | HttpError
) -> Reply | HttpError | Rejection:
    """A scripted web search answers only a Messages API request that offered the `web_search`
    server tool, as the real API would search only then."""
    if not isinstance(turn, Reply) or not any(isinstance(b, WebSearchPart) for b in turn.blocks):
        return turn
    if record.wire != "anthropic":
        return Rejection("FakeModelServer: a web search is the Messages API's server tool")
    tools = record.body.get("tools")
    offered = isinstance(tools, list) and any(
        isinstance(t, dict) and str(t.get("type", "")).startswith("web_search")  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
        for t in tools  # pyright: ignore[reportUnknownVariableType]
    )
    if not offered:
        return Rejection(
            "FakeModelServer: a scripted web search answers a request that offered no "
            "web_search tool"
        )
    return turn
