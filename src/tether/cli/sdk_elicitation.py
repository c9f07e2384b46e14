"""An MCP server's form shown to the SDK client driving the session, as Claude Code shows it:
an `elicitation` control request (`mcp_server_name`, `message`, `mode`, and the form's
`requested_schema` or the page's `url`), answered with the MCP answer (`action`, `content`).

A client that does not take forms (it answers the request with an error, as the Python SDK
does) or gives an answer that cannot be read: the form is declined, as with no client."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, cast

from tether.cli.control import ClientRefused, ControlChannel
from tether.cli.terminal_text import terminal_safe

if TYPE_CHECKING:  # the MCP client's side is loaded when a server first asks for a form
    from tether.mcp.client_side import Elicit, ElicitAction, Elicitation, Elicited

ACTIONS: tuple[ElicitAction, ...] = ("accept", "decline", "cancel")


def client_forms(channel: ControlChannel) -> Elicit:
    """Forms shown to the client over `channel`."""

    async def ask(asked: Elicitation) -> Elicited:
        from tether.mcp.client_side import Elicited

        try:
            answer = await channel.request(elicitation_request(asked))
        except ClientRefused:
            return Elicited("decline")  # no form shown: as without a client
        said = read_answer(answer)
        if isinstance(said, str):
            print(f"tether: {terminal_safe(said)}", file=sys.stderr, flush=True)
            return Elicited("decline")
        return said

    return ask


def elicitation_request(asked: Elicitation) -> dict[str, Any]:
    """The control request's body."""
    body: dict[str, Any] = {
        "subtype": "elicitation",
        "mcp_server_name": asked.server,
        "message": asked.message,
    }
    if asked.url is not None:
        body.update(mode="url", url=asked.url)
        if asked.elicitation_id is not None:
            body["elicitation_id"] = asked.elicitation_id
        return body
    body.update(mode="form", requested_schema=asked.schema)
    properties = asked.schema.get("properties")
    if isinstance(properties, dict):
        body["property_order"] = list(cast(dict[str, Any], properties))
    return body


def read_answer(answer: dict[str, Any]) -> Elicited | str:
    """The client's answer, or why it cannot be used."""
    from tether.mcp.client_side import Elicited

    action = answer.get("action")
    if action not in ACTIONS:
        expected = ", ".join(f'"{a}"' for a in ACTIONS)
        return f"the client answered a form with action {action!r}, not {expected}: declined"
    content = answer.get("content")
    if content is not None and not isinstance(content, dict):
        return "the client answered a form with content that is not an object: declined"
    if action != "accept":
        return Elicited(cast("ElicitAction", action))
    return Elicited("accept", cast(dict[str, Any] | None, content))
