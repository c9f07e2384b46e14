"""A result's `usage` and `modelUsage` as Claude Code's, through the real Claude Agent SDK over
the wire: the thinking tokens, cache split and service tier read from the API's reply (the
fake server sends them as the API does), and each model's `modelUsage` entry with that
model's own window and output cap after a change of model."""

from __future__ import annotations

from tests.cli.sdk_harness import SdkRun, result_of
from tether.models.catalogue import MODELS
from tether.testing import FakeModelServer, reply, text, thinking

SONNET, HAIKU = "claude-sonnet-4-6", "claude-haiku-4-5"
BIG = "claude-sonnet-5-5"

MODEL_USAGE_KEYS = (
    "inputTokens",
    "outputTokens",
    "cacheReadInputTokens",
    "cacheCreationInputTokens",
    "webSearchRequests",
    "costUSD",
    "contextWindow",
    "maxOutputTokens",
    "thinkingTokens",
    "cacheCreationEphemeral5mInputTokens",
    "cacheCreationEphemeral1hInputTokens",
    "canonicalModel",
    "provider",
    "costBasis",
)
"""The keys of a `modelUsage` entry in Claude Code's result line, in its order."""


async def test_each_model_keeps_its_own_window_and_output_cap_after_set_model(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("one")), reply(text("two")))
    async with sdk.client(model=BIG) as c:
        await c.query("first")
        first = result_of([m async for m in c.receive_response()])
        await c.set_model(HAIKU)
        await c.query("second")
        second = result_of([m async for m in c.receive_response()])
    assert first.model_usage is not None
    assert second.model_usage is not None
    limits = ("contextWindow", "maxOutputTokens")
    assert [first.model_usage[BIG][k] for k in limits] == [1_000_000, 128_000]
    before = [first.model_usage[BIG][k] for k in limits]
    assert before[1] == MODELS[BIG].max_output_tokens
    # Before, the second result said haiku's limits for sonnet too.
    assert [second.model_usage[BIG][k] for k in limits] == before
    haiku = second.model_usage[HAIKU]
    assert (haiku["contextWindow"], haiku["maxOutputTokens"]) == (200_000, 32_000)  # Claude Code's
    assert tuple(haiku) == MODEL_USAGE_KEYS
    assert (haiku["canonicalModel"], haiku["provider"], haiku["costBasis"]) == (
        HAIKU,
        "firstParty",
        "list",
    )


async def test_thinking_tokens_cache_split_and_tier_are_the_apis(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(
        reply(thinking("plan " * 40, "sig-A"), text("one"), usage={"thinking_tokens": 37})
    )
    result = result_of(await sdk.query("hi", model=SONNET))
    assert result.usage is not None
    assert result.usage["output_tokens_details"] == {"thinking_tokens": 37}  # was always 0
    [answered] = fake_model.requests
    assert answered.usage is not None
    written = answered.usage["cache_creation_input_tokens"]
    assert written > 0
    assert result.usage["cache_creation"] == {
        "ephemeral_1h_input_tokens": 0,
        "ephemeral_5m_input_tokens": written,
    }
    assert result.usage["service_tier"] == "standard"
    assert result.model_usage is not None
    entry = result.model_usage[SONNET]
    assert (entry["thinkingTokens"], entry["cacheCreationEphemeral5mInputTokens"]) == (37, written)
    assert not fake_model.rejections
