"""The fake server's Anthropic wire format, read by the real anthropic SDK."""

from __future__ import annotations

from typing import Any

import anthropic

from tether.testing import (
    FakeModelServer,
    raw_tool_use,
    reply,
    text,
    thinking,
    tool_use,
)

HELLO: list[Any] = [{"role": "user", "content": "hello"}]


def stream_final(claude: anthropic.Anthropic, **kwargs: Any) -> anthropic.types.Message:
    params: dict[str, Any] = {"model": "claude-test", "max_tokens": 1000, "messages": HELLO}
    with claude.messages.stream(**(params | kwargs)) as stream:
        return stream.get_final_message()


def test_text_streams_in_several_deltas_and_assembles(
    fake_model: FakeModelServer, claude: anthropic.Anthropic
) -> None:
    long_text = "The quick brown fox jumps over the lazy dog, twice over."
    fake_model.script(text(long_text))
    with claude.messages.stream(model="claude-test", max_tokens=1000, messages=HELLO) as stream:
        deltas = list(stream.text_stream)
        message = stream.get_final_message()
    assert len(deltas) > 2
    assert "".join(deltas) == long_text
    assert message.model_dump(exclude_none=True) == {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": long_text}],
        "stop_reason": "end_turn",
        "usage": {
            "input_tokens": message.usage.input_tokens,
            "output_tokens": len(long_text) // 4,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            # As the API says them: the cache split, the tier, the tokens thought with.
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "service_tier": "standard",
            "output_tokens_details": {"thinking_tokens": 0},
        },
    }
    assert message.usage.input_tokens > 0


def test_event_order_matches_the_api(
    fake_model: FakeModelServer, claude: anthropic.Anthropic
) -> None:
    fake_model.script(reply(text("Looking."), tool_use("Bash", command="ls")))
    raw = claude.messages.create(model="m", max_tokens=100, messages=HELLO, stream=True)
    kinds: list[str] = []
    first_json: str | None = None
    for event in raw:
        kind = event.type
        if event.type == "content_block_delta":
            kind = event.delta.type
            if event.delta.type == "input_json_delta" and first_json is None:
                first_json = event.delta.partial_json
        if not kinds or kinds[-1] != kind:
            kinds.append(kind)
    assert kinds == [
        "message_start",
        "content_block_start",
        "text_delta",
        "content_block_stop",
        "content_block_start",
        "input_json_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert first_json == ""


def test_tool_use_input_assembles_in_the_sdk_accumulator(
    fake_model: FakeModelServer, claude: anthropic.Anthropic
) -> None:
    command = "grep -rn 'a fairly long pattern' src/ | head -50"
    fake_model.script(
        reply(
            text("Let me search."),
            tool_use("Bash", command=command, timeout=5000),
            tool_use("Read", {"file_path": "/tmp/x"}, id="toolu_given"),
        )
    )
    message = stream_final(claude)
    assert [block.model_dump(exclude_none=True) for block in message.content] == [
        {"type": "text", "text": "Let me search."},
        {
            "type": "tool_use",
            "id": "toolu_1",
            "name": "Bash",
            "input": {"command": command, "timeout": 5000},
        },
        {"type": "tool_use", "id": "toolu_given", "name": "Read", "input": {"file_path": "/tmp/x"}},
    ]
    assert message.stop_reason == "tool_use"


def test_tool_ids_keep_counting_across_replies(
    fake_model: FakeModelServer, claude: anthropic.Anthropic
) -> None:
    fake_model.script(tool_use("A", x=1), tool_use("B", y=2))
    first = stream_final(claude).content[0]
    transcript: list[Any] = [
        *HELLO,
        {"role": "assistant", "content": [first.model_dump(exclude_none=True)]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "1"}],
        },
    ]
    second = stream_final(claude, messages=transcript).content[0]
    assert (first.type, second.type) == ("tool_use", "tool_use")
    assert [first.id, second.id] == ["toolu_1", "toolu_2"]  # type: ignore[union-attr]


def test_thinking_block_with_signature(
    fake_model: FakeModelServer, claude: anthropic.Anthropic
) -> None:
    thought = "The user greets me; a greeting in return seems right."
    fake_model.script(reply(thinking(thought, signature="sig-abc"), text("Hi!")))
    message = stream_final(
        claude, max_tokens=4000, thinking={"type": "enabled", "budget_tokens": 2000}
    )
    assert [block.model_dump(exclude_none=True) for block in message.content] == [
        {"type": "thinking", "thinking": thought, "signature": "sig-abc"},
        {"type": "text", "text": "Hi!"},
    ]


def test_usage_override_and_stop_reason(
    fake_model: FakeModelServer, claude: anthropic.Anthropic
) -> None:
    usage = {
        "input_tokens": 10,
        "output_tokens": 7,
        "cache_creation_input_tokens": 300,
        "cache_read_input_tokens": 5000,
    }
    fake_model.script(reply(text("partial"), stop_reason="max_tokens", usage=usage))
    message = stream_final(claude)
    assert message.stop_reason == "max_tokens"
    assert message.usage.model_dump(exclude_none=True) == {
        **usage,
        "cache_creation": {"ephemeral_5m_input_tokens": 300, "ephemeral_1h_input_tokens": 0},
        "service_tier": "standard",
        "output_tokens_details": {"thinking_tokens": 0},
    }


def test_stop_sequence_is_reported(
    fake_model: FakeModelServer, claude: anthropic.Anthropic
) -> None:
    fake_model.script(reply(text("one two"), stop_reason="stop_sequence"))
    message = stream_final(claude, stop_sequences=["three"])
    assert (message.stop_reason, message.stop_sequence) == ("stop_sequence", "three")


def test_raw_tool_use_streams_the_exact_arguments(
    fake_model: FakeModelServer, claude: anthropic.Anthropic
) -> None:
    fake_model.script(raw_tool_use("Bash", '{"command": "ec'))
    raw = claude.messages.create(model="m", max_tokens=100, messages=HELLO, stream=True)
    fragments = [
        event.delta.partial_json
        for event in raw
        if event.type == "content_block_delta" and event.delta.type == "input_json_delta"
    ]
    assert "".join(fragments) == '{"command": "ec'


def test_non_streaming_request_gets_the_whole_message(
    fake_model: FakeModelServer, claude: anthropic.Anthropic
) -> None:
    fake_model.script(reply(thinking("hm"), text("done"), tool_use("Bash", command="ls")))
    message = claude.messages.create(model="claude-x", max_tokens=100, messages=HELLO)
    assert [block.type for block in message.content] == ["thinking", "text", "tool_use"]
    assert message.content[2].model_dump(exclude_none=True) == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "Bash",
        "input": {"command": "ls"},
    }
    assert (message.model, message.stop_reason) == ("claude-x", "tool_use")
    assert fake_model.requests[0].stream is False


async def test_async_client_streams(fake_model: FakeModelServer) -> None:
    fake_model.script(text("async hello"), tool_use("Bash", command="pwd"))
    async with anthropic.AsyncAnthropic(base_url=fake_model.url, api_key="k") as client:
        async with client.messages.stream(model="m", max_tokens=100, messages=HELLO) as stream:
            first = await stream.get_final_message()
        async with client.messages.stream(model="m", max_tokens=100, messages=HELLO) as stream:
            second = await stream.get_final_message()
    assert first.content[0].model_dump(exclude_none=True) == {"type": "text", "text": "async hello"}
    assert second.content[0].model_dump(exclude_none=True) == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "Bash",
        "input": {"command": "pwd"},
    }
    assert [r.index for r in fake_model.requests] == [0, 1]
