"""The fake server's simulated prompt cache: the store itself, then over the wire."""

from __future__ import annotations

from typing import Any

import anthropic
import openai

from tether.testing import FakeModelServer, reply, text
from tether.testing.prompt_cache import (
    CacheUsage,
    PromptCache,
    anthropic_blocks,
)
from tether.testing.tokens import CHARS_PER_TOKEN

EPHEMERAL = {"type": "ephemeral"}
BIG = "x" * 6000  # about 1500 tokens: above the 1024-token minimum on its own


def tokens_of(body: dict[str, Any], blocks: int) -> int:
    """Estimated tokens of the first `blocks` blocks of `body`'s prompt."""
    chars = sum(b.chars for b in anthropic_blocks(body)[:blocks])
    return chars // CHARS_PER_TOKEN


def user(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": list(blocks)}


def block(label: str, *, mark: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {"type": "text", "text": label}
    if mark:
        result["cache_control"] = EPHEMERAL
    return result


def body_with(messages: list[dict[str, Any]], system_mark: bool = True) -> dict[str, Any]:
    system: dict[str, Any] = {"type": "text", "text": BIG}
    if system_mark:
        system["cache_control"] = EPHEMERAL
    return {"model": "m", "system": [system], "messages": messages}


def test_a_prefix_under_1024_tokens_is_not_cached() -> None:
    cache = PromptCache()
    small = {"model": "m", "system": [block("short", mark=True)], "messages": [user(block("hi"))]}
    assert cache.anthropic(small, 100) == CacheUsage(100, 0, 0)
    assert cache.anthropic(small, 100) == CacheUsage(100, 0, 0)


def test_first_request_writes_and_the_same_prefix_is_then_read_at_the_breakpoint() -> None:
    cache = PromptCache()
    body = body_with([user(block("hello"))])
    system_tokens = tokens_of(body, 1)
    assert system_tokens >= 1024
    total = system_tokens + 10
    assert cache.anthropic(body, total) == CacheUsage(10, system_tokens, 0)
    assert cache.anthropic(body, total) == CacheUsage(10, 0, system_tokens)


def test_creation_counts_the_tokens_between_the_read_and_the_last_breakpoint() -> None:
    cache = PromptCache()
    first = body_with([user(block("one", mark=True))])
    cache.anthropic(first, 5000)
    second = body_with(
        [
            user(block("one")),
            {"role": "assistant", "content": [block("two")]},
            user(block("three", mark=True)),
        ]
    )
    read, through_last = tokens_of(second, 2), tokens_of(second, 4)
    assert cache.anthropic(second, 5000) == CacheUsage(
        5000 - through_last, through_last - read, read
    )


def test_a_read_finds_a_prefix_up_to_20_blocks_before_a_breakpoint() -> None:
    cache = PromptCache()
    cache.anthropic(body_with([user(block("start"))]), 5000)  # stores the system prompt only
    near = body_with(
        [user(*[block(f"b{i}") for i in range(19)], block("end", mark=True))], system_mark=False
    )
    # The system block is 20 blocks before the breakpoint: found.
    assert cache.anthropic(near, 5000).cache_read_input_tokens == tokens_of(near, 1)


def test_a_prefix_more_than_20_blocks_before_any_breakpoint_is_not_found() -> None:
    cache = PromptCache()
    cache.anthropic(body_with([user(block("start"))]), 5000)
    far = body_with(
        [user(*[block(f"b{i}") for i in range(20)], block("end", mark=True))], system_mark=False
    )
    usage = cache.anthropic(far, 5000)
    assert usage.cache_read_input_tokens == 0
    assert usage.cache_creation_input_tokens == tokens_of(far, 22)


def test_cache_control_and_tool_result_form_are_not_part_of_the_content() -> None:
    call = {"type": "tool_use", "id": "t1", "name": "Read", "input": {}}
    as_string = {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": "file text",
        "cache_control": EPHEMERAL,
    }
    as_blocks = {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": [{"type": "text", "text": "file text"}],
    }
    messages = [user(block("go")), {"role": "assistant", "content": [call]}]
    first = body_with([*messages, user(as_string)])
    second = body_with([*messages, user(as_blocks, block("next", mark=True))])
    assert [b.canonical for b in anthropic_blocks(first)] == [
        b.canonical for b in anthropic_blocks(second)[:4]
    ]
    assert all("cache_control" not in b.canonical for b in anthropic_blocks(first))
    cache = PromptCache()
    cache.anthropic(first, 5000)
    # The first request stored a prefix ending at its tool result; the second, with the
    # result in the other form and unmarked, finds it one block before its breakpoint.
    read, through_last = tokens_of(second, 4), tokens_of(second, 5)
    assert cache.anthropic(second, 5000) == CacheUsage(
        5000 - through_last, through_last - read, read
    )


def test_a_breakpoint_moved_to_a_later_block_reads_the_earlier_one() -> None:
    cache = PromptCache()
    history = [user(block("a")), {"role": "assistant", "content": [block("b")]}]
    marked_then = body_with([user(block("a", mark=True))])
    cache.anthropic(marked_then, 5000)
    later = body_with([*history, user(block("c", mark=True))])
    # "a" was stored with a breakpoint on it; the same block unmarked is the same prefix.
    assert cache.anthropic(later, 5000).cache_read_input_tokens == tokens_of(later, 2)


def test_openai_reads_the_longest_seen_prefix_in_128_token_steps() -> None:
    cache = PromptCache()
    first = {"model": "m", "messages": [{"role": "system", "content": BIG}]}
    assert cache.openai(first, 2000) == CacheUsage(2000, 0, 0)
    second = {"model": "m", "messages": [*first["messages"], {"role": "user", "content": "hi"}]}
    usage = cache.openai(second, 2000)
    assert usage.cache_read_input_tokens % 128 == 0
    assert 1024 <= usage.cache_read_input_tokens <= 1500
    assert usage.input_tokens == 2000 - usage.cache_read_input_tokens


# --- over the wire -------------------------------------------------------------------------


def test_the_second_request_with_the_same_prefix_reports_a_cache_read(
    fake_model: FakeModelServer, claude: anthropic.Anthropic
) -> None:
    fake_model.script(text("one"), text("two"))
    system: Any = [{"type": "text", "text": BIG, "cache_control": EPHEMERAL}]
    first = claude.messages.create(
        model="claude-test",
        max_tokens=100,
        system=system,
        messages=[{"role": "user", "content": "a"}],
    )
    with claude.messages.stream(
        model="claude-test",
        max_tokens=100,
        system=system,
        messages=[{"role": "user", "content": "b"}],
    ) as stream:
        second = stream.get_final_message()
    written = first.usage.cache_creation_input_tokens
    assert written is not None
    assert written > 1024
    assert second.usage.cache_read_input_tokens == written
    assert first.usage.cache_read_input_tokens == second.usage.cache_creation_input_tokens == 0
    counts = ("input_tokens", "output_tokens", "cache_creation_input_tokens")
    counts += ("cache_read_input_tokens",)
    assert [r.usage for r in fake_model.requests] == [
        first.usage.model_dump(include=set(counts)),
        second.usage.model_dump(include=set(counts)),
    ]
    assert fake_model.cache_stats() == {
        "requests": 2,
        "input_tokens": first.usage.input_tokens + second.usage.input_tokens,
        "cache_creation_input_tokens": first.usage.cache_creation_input_tokens,
        "cache_read_input_tokens": second.usage.cache_read_input_tokens,
    }


def test_a_scripted_usage_still_wins(
    fake_model: FakeModelServer, claude: anthropic.Anthropic
) -> None:
    fake_model.script(text("one"), reply(text("two"), usage={"cache_read_input_tokens": 7}))
    system: Any = [{"type": "text", "text": BIG, "cache_control": EPHEMERAL}]
    messages: Any = [{"role": "user", "content": "a"}]
    params: dict[str, Any] = {"model": "claude-test", "max_tokens": 100, "system": system}
    claude.messages.create(**params, messages=messages)
    second = claude.messages.create(**params, messages=messages)
    assert second.usage.cache_read_input_tokens == 7
    assert second.usage.cache_creation_input_tokens == 0


def test_openai_reports_cached_tokens(fake_model: FakeModelServer, gpt: openai.OpenAI) -> None:
    fake_model.script(text("one"), text("two"))
    messages: Any = [{"role": "system", "content": BIG}, {"role": "user", "content": "hi"}]
    first = gpt.chat.completions.create(model="gpt-test", messages=messages)
    second = gpt.chat.completions.create(model="gpt-test", messages=messages)
    assert first.usage is not None
    assert second.usage is not None
    assert first.usage.prompt_tokens_details is not None
    assert second.usage.prompt_tokens_details is not None
    assert first.usage.prompt_tokens_details.cached_tokens == 0
    cached = second.usage.prompt_tokens_details.cached_tokens
    assert cached is not None
    assert cached >= 1024
    assert cached % 128 == 0
    assert second.usage.prompt_tokens == first.usage.prompt_tokens
