"""Converted messages are reused across requests, and reuse never leaks one request's cache
breakpoints into the next."""

from __future__ import annotations

from typing import Any

from tether.models.anthropic import AnthropicModel
from tether.models.base import ModelRequest
from tether.models.openai_compat import OpenAICompatModel
from tether.models.wire_cache import ConvertedMessages
from tether.protocol import Message, TextBlock, ToolResultBlock, ToolUseBlock
from tether.testing import FakeModelServer, reply, text

from .streams import ClosableModel, count_cache_controls, finish


def test_a_growing_history_converts_only_new_messages() -> None:
    calls: list[Message] = []

    def convert(message: Message) -> str:
        calls.append(message)
        return message.text()

    cache = ConvertedMessages(convert)
    first, second, third = (Message.user_text(t) for t in ("a", "b", "c"))
    assert cache.convert_all([first, second]) == ["a", "b"]
    assert cache.convert_all([first, second, third]) == ["a", "b", "c"]
    assert calls == [first, second, third]
    assert cache.convert_all([first, third]) == ["a", "c"]
    assert calls == [first, second, third, third]
    assert cache.convert_all([second]) == ["b"]
    assert calls[-1] is second


def _growing_history(turns: int) -> list[tuple[Message, ...]]:
    history: list[Message] = [Message.user_text("start")]
    snapshots: list[tuple[Message, ...]] = []
    for i in range(turns):
        snapshots.append(tuple(history))
        call = ToolUseBlock(id=f"toolu_{i}", name="Read", input={"file_path": "a.txt"})
        history.append(Message(role="assistant", content=(TextBlock(text=f"step {i}"), call)))
        history.append(
            Message(role="user", content=(ToolResultBlock(tool_use_id=call.id, content="x"),))
        )
    return snapshots


async def _send_growing_history(model: ClosableModel, server: FakeModelServer, turns: int) -> None:
    """One request per snapshot of a history growing by a tool round trip each turn, all
    through the same model (so through its converted-message cache)."""
    snapshots = _growing_history(turns)
    server.script(*[reply(text("ok")) for _ in snapshots])
    for messages in snapshots:
        await finish(model, ModelRequest(model="m", system="s", messages=messages))


async def test_anthropic_breakpoints_do_not_accumulate(fake_model: FakeModelServer) -> None:
    model = AnthropicModel(model="claude-sonnet-5-5", api_key="k", base_url=fake_model.url)
    await _send_growing_history(model, fake_model, turns=5)
    counts = [count_cache_controls(r.body) for r in fake_model.requests]
    assert counts == [2, 3, 3, 3, 3]
    oldest_marks: list[Any] = [
        block.get("cache_control") for block in fake_model.requests[-1].messages()[1]["content"]
    ]
    assert oldest_marks == [None, None]


async def test_openai_history_is_identical_with_reuse(fake_model: FakeModelServer) -> None:
    model = OpenAICompatModel(model="gpt-4.1", api_key="k", base_url=fake_model.openai_base_url)
    await _send_growing_history(model, fake_model, turns=3)
    last = fake_model.requests[-1].messages()
    assert [m["role"] for m in last] == ["system", "user", "assistant", "tool", "assistant", "tool"]
    assert fake_model.requests[1].messages() == last[:4]


async def test_anthropic_body_is_the_one_build_body_describes(fake_model: FakeModelServer) -> None:
    """Pre-encoded messages and fresh encoding of the marked ones make exactly the body that
    `build_body` describes, whatever the history's reuse."""
    from tether.models.anthropic_request import build_body, convert_messages
    from tether.protocol import ToolSpec

    model = AnthropicModel(model="claude-sonnet-5-5", api_key="k", base_url=fake_model.url)
    tools = (ToolSpec(name="Read", description="Read a file.", input_schema={"type": "object"}),)
    snapshots = _growing_history(4)
    fake_model.script(*[reply(text("ok")) for _ in snapshots])
    for messages in snapshots:
        request = ModelRequest(
            model="m", system="You help: «ünïcode»", messages=messages, tools=tools
        )
        await finish(model, request)
        expected = build_body(request, model="claude-sonnet-5-5")
        assert fake_model.requests[-1].body == {**expected, "stream": True}
        assert convert_messages(messages) == [
            {
                **m,
                "content": [
                    {k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]
                ],
            }
            for m in fake_model.requests[-1].body["messages"]
        ]
