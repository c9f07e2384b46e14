"""Partial messages (`include_partial_messages`) as Claude Code writes them, with the real
Claude Agent SDK over the wire: every reply has its whole event sequence, a tool call's too,
and tool input goes out fragment by fragment as the endpoint sent it."""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import AssistantMessage, StreamEvent, UserMessage

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, thinking, tool_use
from tether.testing.anthropic_wire import pieces


def _shape(messages: list[Any]) -> list[str]:
    shapes: list[str] = []
    for m in messages:
        if isinstance(m, StreamEvent):
            event = m.event
            delta = event.get("delta", {}).get("type") if event["type"].endswith("delta") else None
            shapes.append(f"{event['type']}:{delta}" if delta else event["type"])
        elif isinstance(m, AssistantMessage | UserMessage):
            shapes.append(type(m).__name__)
    return shapes


async def test_a_reply_that_is_only_a_tool_call_streams_every_event(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    command = "echo " + "x" * 80  # long enough for the endpoint to send it in pieces
    fake_model.script(reply(tool_use("Bash", command=command)), reply(text("done")))
    messages = await sdk.query(
        "go", include_partial_messages=True, permission_mode="bypassPermissions"
    )
    arguments = '{"command": "' + command + '"}'
    fragments = ["", *pieces(arguments)]
    assert len(fragments) >= 3
    assert _shape(messages) == [
        "message_start",
        "content_block_start",
        *["content_block_delta:input_json_delta"] * len(fragments),
        # As Claude Code: each block's message as it closes, before its stop event.
        "AssistantMessage",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "UserMessage",
        "message_start",
        "content_block_start",
        "content_block_delta:text_delta",
        "AssistantMessage",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    events = [m.event for m in messages if isinstance(m, StreamEvent)]
    assert events[1]["content_block"] == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "Bash",
        "input": {},
    }
    sent = [
        e["delta"]["partial_json"]
        for e in events
        if e.get("delta", {}).get("partial_json") is not None
    ]
    assert sent == fragments  # as they came, not merged
    assert events[len(fragments) + 3]["delta"]["stop_reason"] == "tool_use"
    sdk.assert_lines_parse()


async def test_a_thinking_block_streams_its_signature(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    """As Claude Code: the thinking's deltas, then its `signature_delta` (a program that rebuilds
    the reply from the events has what it needs to send the thinking back), then the block's
    message and its stop."""
    fake_model.script(reply(thinking("pondering", signature="sig-77"), text("answer")))
    messages = await sdk.query("go", include_partial_messages=True, max_thinking_tokens=2000)
    shape = _shape(messages)
    first_stop = shape.index("content_block_stop")
    assert shape[: first_stop + 1] == [
        "message_start",
        "content_block_start",
        "content_block_delta:thinking_delta",
        "content_block_delta:signature_delta",
        "AssistantMessage",
        "content_block_stop",
    ]
    [signature] = [
        m.event["delta"]["signature"]
        for m in messages
        if isinstance(m, StreamEvent) and m.event.get("delta", {}).get("type") == "signature_delta"
    ]
    assert signature == "sig-77"
    sdk.assert_lines_parse()
