"""What Claude Code's lines say of each API response, with the real Claude Agent SDK over the
wire: the API's message id on assistant lines (`message.id`, the SDK's `message_id`) and the
request's id (`request_id`) from the response's headers; with partial messages, the
`message_start` sent when the response starts, with the input and cache counts known then and
`ttft_ms`; the result's `ttft_ms`. A retried call reports the attempt that answered."""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import AssistantMessage, StreamEvent

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use

USAGE = {
    "input_tokens": 1200,
    "output_tokens": 30,
    "cache_creation_input_tokens": 300,
    "cache_read_input_tokens": 9000,
}


def _lines(sdk: SdkRun, kind: str) -> list[dict[str, Any]]:
    return [line for line in sdk.lines() if line["type"] == kind]


async def test_assistant_lines_carry_the_apis_message_and_request_ids(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(tool_use("Bash", command="true")), reply(text("done")))
    messages = await sdk.query("go", permission_mode="bypassPermissions")
    replies = [m for m in messages if isinstance(m, AssistantMessage)]
    assert [m.message_id for m in replies] == ["msg_1", "msg_2"]
    assert [line["request_id"] for line in _lines(sdk, "assistant")] == ["req_0", "req_1"]
    result = _lines(sdk, "result")[0]
    assert isinstance(result["ttft_ms"], int)
    assert 0 <= result["ttft_ms"] <= result["duration_ms"]
    assert result_of(messages).subtype == "success"
    sdk.assert_lines_parse()


async def test_message_start_goes_out_when_the_response_starts_with_its_usage(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("hello there"), usage=USAGE))
    messages = await sdk.query("hi", include_partial_messages=True)
    events = [m for m in messages if isinstance(m, StreamEvent)]
    start = events[0].event
    assert start["type"] == "message_start"
    assert start["message"]["id"] == "msg_1"
    # Known at the start: the input and cache counts (the API's message_start says them).
    assert {k: start["message"]["usage"][k] for k in USAGE if k != "output_tokens"} == {
        "input_tokens": 1200,
        "cache_creation_input_tokens": 300,
        "cache_read_input_tokens": 9000,
    }
    assert all(e.event["type"] != "message_start" for e in events[1:])
    [start_line] = [
        line for line in _lines(sdk, "stream_event") if line["event"]["type"] == "message_start"
    ]
    assert isinstance(start_line["ttft_ms"], int)
    assert start_line["ttft_ms"] >= 0
    assert all("ttft_ms" not in line for line in _lines(sdk, "stream_event")[1:])
    assert {e.event.get("message", {}).get("id", "msg_1") for e in events} == {"msg_1"}
    # The text block's line goes out as the block closes (as Claude Code): the usage known then.
    [assistant] = [m for m in messages if isinstance(m, AssistantMessage)]
    assert assistant.message_id == "msg_1"
    assert assistant.usage is not None
    assert {k: assistant.usage[k] for k in USAGE if k != "output_tokens"} == {
        k: USAGE[k] for k in USAGE if k != "output_tokens"
    }
    sdk.assert_lines_parse()


async def test_a_retried_call_reports_the_attempt_that_answered(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    # The first attempt starts (message_start, ping), then its connection drops.
    fake_model.script(reply(text("lost answer"), cut_after=2), reply(text("second try")))
    messages = await sdk.query(
        "hi", include_partial_messages=True, env={"TETHER_RETRY_DELAY_MS": "1"}
    )
    starts = [
        line for line in _lines(sdk, "stream_event") if line["event"]["type"] == "message_start"
    ]
    assert [line["event"]["message"]["id"] for line in starts] == ["msg_1", "msg_2"]
    [assistant] = [m for m in messages if isinstance(m, AssistantMessage)]
    assert assistant.message_id == "msg_2"
    assert [line["request_id"] for line in _lines(sdk, "assistant")] == ["req_1"]
    assert result_of(messages).result == "second try"
    sdk.assert_lines_parse()
