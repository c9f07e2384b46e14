"""The fake server's OpenAI Chat Completions wire format, read by the real openai SDK."""

from __future__ import annotations

from typing import Any

import openai
import pytest

from tether.testing import FakeModelServer, raw_tool_use, reply, text, thinking, tool_use

HELLO: list[Any] = [{"role": "user", "content": "hello"}]


def test_text_streams_and_usage_comes_last(fake_model: FakeModelServer, gpt: openai.OpenAI) -> None:
    long_text = "The quick brown fox jumps over the lazy dog, twice over."
    fake_model.script(
        reply(
            text(long_text),
            usage={"input_tokens": 100, "output_tokens": 9, "cache_read_input_tokens": 900},
        )
    )
    chunks = list(
        gpt.chat.completions.create(
            model="gpt-test",
            messages=HELLO,
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    assert chunks[0].choices[0].delta.role == "assistant"
    contents = [
        c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content
    ]
    assert len(contents) > 2
    assert "".join(contents) == long_text
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.model_dump(exclude_none=True) == {
        "prompt_tokens": 1000,
        "completion_tokens": 9,
        "total_tokens": 1009,
        "prompt_tokens_details": {"cached_tokens": 900},
    }
    assert {c.id for c in chunks} == {"chatcmpl-1"}


def test_no_usage_chunk_unless_asked(fake_model: FakeModelServer, gpt: openai.OpenAI) -> None:
    fake_model.script(text("hi"))
    chunks = list(gpt.chat.completions.create(model="m", messages=HELLO, stream=True))
    assert all(c.choices for c in chunks)
    assert all(c.usage is None for c in chunks)


def test_tool_call_deltas_assemble(fake_model: FakeModelServer, gpt: openai.OpenAI) -> None:
    command = "grep -rn 'a fairly long pattern' src/ | head -50"
    fake_model.script(
        reply(
            text("Searching."),
            tool_use("Bash", command=command),
            tool_use("Read", {"file_path": "/x"}, id="call_given"),
        )
    )
    calls: dict[int, dict[str, str]] = {}
    openings = 0
    finish = None
    for chunk in gpt.chat.completions.create(model="m", messages=HELLO, stream=True):
        choice = chunk.choices[0]
        finish = choice.finish_reason or finish
        for delta in choice.delta.tool_calls or []:
            call = calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
            if delta.id:
                openings += 1
                assert delta.type == "function"
                assert delta.function is not None
                assert delta.function.arguments == ""
                call["id"] = delta.id
                call["name"] = delta.function.name or ""
            elif delta.function and delta.function.arguments:
                call["arguments"] += delta.function.arguments
    assert openings == 2
    assert calls == {
        0: {"id": "call_1", "name": "Bash", "arguments": f'{{"command": "{command}"}}'},
        1: {"id": "call_given", "name": "Read", "arguments": '{"file_path": "/x"}'},
    }
    assert finish == "tool_calls"


def test_stream_helper_accumulates_tool_calls(
    fake_model: FakeModelServer, gpt: openai.OpenAI
) -> None:
    fake_model.script(tool_use("Bash", command="echo hi"))
    with gpt.chat.completions.stream(model="m", messages=HELLO) as stream:
        completion = stream.get_final_completion()
    calls = completion.choices[0].message.tool_calls or []
    assert [(c.id, c.function.name, c.function.arguments) for c in calls] == [  # type: ignore[union-attr]
        ("call_1", "Bash", '{"command": "echo hi"}')
    ]


def test_thinking_is_reasoning_content(fake_model: FakeModelServer, gpt: openai.OpenAI) -> None:
    thought = "A greeting deserves a greeting in return."
    fake_model.script(reply(thinking(thought), text("Hi!")))
    reasoning = ""
    for chunk in gpt.chat.completions.create(model="m", messages=HELLO, stream=True):
        if chunk.choices:
            reasoning += getattr(chunk.choices[0].delta, "reasoning_content", None) or ""
    assert reasoning == thought


@pytest.mark.parametrize(
    ("stop_reason", "finish_reason"),
    [
        ("end_turn", "stop"),
        ("max_tokens", "length"),
        ("refusal", "content_filter"),
        ("pause_turn", "stop"),
        ("stop_sequence", "stop"),
    ],
)
def test_finish_reason_mapping(
    fake_model: FakeModelServer, gpt: openai.OpenAI, stop_reason: Any, finish_reason: str
) -> None:
    fake_model.script(reply(text("x"), stop_reason=stop_reason))
    completion = gpt.chat.completions.create(model="m", messages=HELLO)
    assert completion.choices[0].finish_reason == finish_reason


def test_non_streaming_completion(fake_model: FakeModelServer, gpt: openai.OpenAI) -> None:
    fake_model.script(
        reply(thinking("hm"), text("Running."), raw_tool_use("Bash", '{"command": "ec'))
    )
    completion = gpt.chat.completions.create(model="gpt-x", messages=HELLO)
    message = completion.choices[0].message
    assert (completion.model, completion.choices[0].finish_reason) == ("gpt-x", "tool_calls")
    assert message.content == "Running."
    assert getattr(message, "reasoning_content", None) == "hm"
    assert [(c.id, c.function.arguments) for c in message.tool_calls or []] == [  # type: ignore[union-attr]
        ("call_1", '{"command": "ec')
    ]
    assert completion.usage is not None
    assert completion.usage.prompt_tokens > 0
    assert fake_model.requests[0].wire == "openai"
    assert fake_model.requests[0].path == "/v1/chat/completions"


async def test_async_client(fake_model: FakeModelServer) -> None:
    fake_model.script(text("async hi"))
    async with openai.AsyncOpenAI(base_url=fake_model.openai_base_url, api_key="k") as client:
        stream = await client.chat.completions.create(model="m", messages=HELLO, stream=True)
        parts = [c.choices[0].delta.content or "" async for c in stream if c.choices]
    assert "".join(parts) == "async hi"
