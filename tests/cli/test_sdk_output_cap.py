"""A user's output cap (`CLAUDE_CODE_MAX_OUTPUT_TOKENS`) as Claude Code takes it, through the
real Claude Agent SDK over the wire: held to the model's most (Claude Code's figures: its
bundled CLI's requests against the fake server), the default thinking budget raised with it
(cap - 1), an invalid value ignored with one warning line; and a `[1m]` suffix on a model
with no 1M window refused before any request."""

from __future__ import annotations

import pytest

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text


@pytest.mark.parametrize(
    ("model", "cap", "sent", "budget"),
    [
        ("claude-sonnet-4-5", "200000", 64_000, 63_999),
        ("claude-haiku-4-5", "40000", 40_000, 39_999),
        ("claude-opus-5-5", "200000", 128_000, None),
        ("openai/gpt-5", "500000", 128_000, None),
        ("claude-sonnet-4-5", "8000", 8_000, 7_999),
    ],
)
async def test_a_cap_is_held_to_the_models_most_and_raises_the_thinking_budget(
    sdk: SdkRun, fake_model: FakeModelServer, model: str, cap: str, sent: int, budget: int | None
) -> None:
    fake_model.script(reply(text("a")))
    env = {"CLAUDE_CODE_MAX_OUTPUT_TOKENS": cap}
    result = result_of(await sdk.query("hi", model=model, env=env))
    [request] = fake_model.requests
    body = request.body
    # Before: 185150 / 200000 / 379474 sent, and a budget of 31999 under a raised cap.
    assert body.get("max_tokens", body.get("max_completion_tokens")) == sent
    if budget is not None:
        assert body["thinking"]["budget_tokens"] == budget
    assert result.model_usage is not None
    [entry] = result.model_usage.values()
    assert entry["maxOutputTokens"] == sent <= entry["contextWindow"]


@pytest.mark.parametrize("value", ["abc", "0", "-5"])
async def test_an_invalid_cap_is_ignored_with_one_warning(
    sdk: SdkRun, fake_model: FakeModelServer, value: str
) -> None:
    fake_model.script(reply(text("a")))
    env = {"CLAUDE_CODE_MAX_OUTPUT_TOKENS": value}
    result = result_of(await sdk.query("hi", model="claude-sonnet-4-5", env=env))
    assert result.result == "a"  # before: tether exited before any request
    [request] = fake_model.requests
    assert request.body["max_tokens"] == 32_000  # Claude Code's default
    assert request.body["thinking"]["budget_tokens"] == 31_999
    warned = [line for line in sdk.stderr if "CLAUDE_CODE_MAX_OUTPUT_TOKENS" in line]
    assert len(warned) == 1
    assert repr(value) in warned[0]
    assert "ignored" in warned[0]


async def test_a_1m_suffix_on_a_model_without_a_1m_window_is_refused(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("never sent")))
    said = r"'openai/gpt-5\[1m\]': \[1m\] asks for a 1M-token window.*gpt-5 has a 400,000"
    with pytest.raises(Exception, match=said):
        await sdk.query("hi", model="openai/gpt-5[1m]")
    assert fake_model.requests == []  # before: run with a 1,000,000-token window
    fake_model.reset()
