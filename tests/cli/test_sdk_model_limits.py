"""Each model's window and output cap as Claude Code runs it, through the real Claude Agent SDK
over the wire: the models the API serves 1M without a beta run in 1M (and no 1M beta is
sent), the 4.5 models get 32000 with a 31999 thinking budget, another provider's model its
API's window; a subagent on another model makes its calls with that model's own limits, and
`modelUsage` gives each model the limits its calls were made with."""

from __future__ import annotations

import pytest
from claude_agent_sdk import AgentDefinition

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use


@pytest.mark.parametrize(
    ("model", "window", "cap", "budget"),
    [
        # Claude Code's own figures (its bundled CLI against the fake server).
        ("claude-opus-5-5", 1_000_000, 128_000, None),
        ("claude-haiku-5-5", 1_000_000, 128_000, None),
        ("claude-opus-4-7", 1_000_000, 64_000, None),
        ("claude-sonnet-4-6", 200_000, 32_000, None),
        ("claude-sonnet-4-5", 200_000, 32_000, 31_999),
        ("claude-haiku-4-5", 200_000, 32_000, 31_999),
        ("openai/gpt-5", 400_000, 128_000, None),
    ],
)
async def test_each_model_runs_in_its_own_window_with_claude_codes_output_cap(
    sdk: SdkRun,
    fake_model: FakeModelServer,
    model: str,
    window: int,
    cap: int,
    budget: int | None,
) -> None:
    fake_model.script(reply(text("a")))
    async with sdk.client(model=model) as client:
        await client.query("hi")
        result = result_of([m async for m in client.receive_response()])
        usage = await client.get_context_usage()
    [sent] = fake_model.requests
    body = sent.body
    assert body.get("max_tokens", body.get("max_completion_tokens")) == cap
    if budget is not None:
        assert body["thinking"]["budget_tokens"] == budget
    assert "context-1m" not in sent.headers.get("anthropic-beta", "")  # no beta: as Claude Code
    assert usage["maxTokens"] == window
    assert result.model_usage is not None
    entry = result.model_usage[model.removeprefix("openai/")]
    assert (entry["contextWindow"], entry["maxOutputTokens"]) == (window, cap)


@pytest.mark.parametrize("cap", [None, 1_000], ids=["own-caps", "user-cap"])
async def test_a_subagent_on_another_model_calls_it_with_that_models_limits(
    sdk: SdkRun, fake_model: FakeModelServer, cap: int | None
) -> None:
    fake_model.script(
        reply(tool_use("Task", description="d", prompt="go", subagent_type="quick")),
        reply(text("quick done")),
        reply(text("all done")),
    )
    quick = AgentDefinition(description="answers fast", prompt="be quick", model="haiku")
    env = {"CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(cap)} if cap is not None else {}
    messages = await sdk.query(
        "ask quick", model="claude-sonnet-4-5", agents={"quick": quick}, env=env
    )
    result = result_of(messages)
    assert result.result == "all done"
    sent = [(r.body["model"], r.body["max_tokens"]) for r in fake_model.requests]
    # Before, the subagent's call carried the parent's cap and window, not haiku's.
    assert sent == [
        ("claude-sonnet-4-5", cap or 32_000),
        ("claude-haiku-5-5", cap or 128_000),
        ("claude-sonnet-4-5", cap or 32_000),
    ]
    assert result.model_usage is not None
    limits = {
        model: (entry["contextWindow"], entry["maxOutputTokens"])
        for model, entry in result.model_usage.items()
    }
    # Before, haiku's entry said the catalogue's cap whatever its calls were sent with.
    assert limits == {
        "claude-sonnet-4-5": (200_000, cap or 32_000),
        "claude-haiku-5-5": (1_000_000, cap or 128_000),
    }
