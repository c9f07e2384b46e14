"""A reply asked again after an error event inside its 200 stream, with partial messages, over
the wire with the real Claude Agent SDK, as the bundled Claude Code CLI writes it on the same
fake API: the failed reply's message is closed (`message_stop` marked `abandoned_blocks`)
before the next one starts, and no `api_retry` line tells the asking again."""

from __future__ import annotations

from typing import Any

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, http_error, reply, text

MODEL = "claude-sonnet-4-5"


def what_a_client_follows(lines: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The stream's messages as they open and close, and the system lines beside them."""
    seen: list[tuple[Any, ...]] = []
    for line in lines:
        if line["type"] == "stream_event" and line["event"]["type"] in (
            "message_start",
            "message_stop",
        ):
            kind = line["event"]["type"]
            seen.append((kind, line["api_message_id"], line.get("abandoned_blocks")))
        elif line["type"] == "system" and line["subtype"] not in ("init", "session_state_changed"):
            seen.append(("system", line["subtype"], line.get("status")))
    return seen


def abandoned(message_id: str) -> tuple[str, str, dict[str, Any]]:
    return ("message_stop", message_id, {"api_message_id": message_id, "from_block_index": 0})


async def test_a_reply_asked_again_after_an_error_event_is_closed_as_abandoned(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    # An error worth waiting for (overloaded: retried as its status is), then one of another
    # type (asked again once, at once), then a whole answer.
    fake_model.script(
        reply(text("first"), stream_error="overloaded_error"),
        reply(text("second"), stream_error="invalid_request_error"),
        reply(text("third")),
    )
    messages = await sdk.query(
        "go", model=MODEL, permission_mode="bypassPermissions", include_partial_messages=True
    )
    assert len(fake_model.requests) == 3
    # Before: msg_1 and msg_2 were left open, and an `api_retry` line told the first retry.
    assert what_a_client_follows(sdk.lines()) == [
        ("system", "status", "requesting"),
        ("message_start", "msg_1", None),
        abandoned("msg_1"),
        ("message_start", "msg_2", None),
        abandoned("msg_2"),
        ("message_start", "msg_3", None),
        ("message_stop", "msg_3", None),
    ]
    [result] = [line for line in sdk.lines() if line["type"] == "result"]
    assert (result["is_error"], result["result"], result["terminal_reason"]) == (
        False,
        "third",
        "completed",
    )
    assert messages[-1].result == "third"
    sdk.assert_lines_parse()


async def test_a_status_error_keeps_its_retry_line(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    """An answer that failed before it streamed (HTTP 529) is retried with its `api_retry`
    line, as Claude Code tells it; no message was begun, so none is closed."""
    fake_model.script(http_error(529, "Overloaded"), reply(text("after")))
    fake_model.expect_rejections = True
    await sdk.query(
        "go", model=MODEL, permission_mode="bypassPermissions", include_partial_messages=True
    )
    assert what_a_client_follows(sdk.lines()) == [
        ("system", "status", "requesting"),
        ("system", "api_retry", None),
        ("message_start", "msg_1", None),
        ("message_stop", "msg_1", None),
    ]
