"""Model names as a Claude Agent SDK client sees them, field for field with Claude Code's
bundled CLI on the same names (measured against the fake server): the id requests carry, the
1M beta, the thinking and output cap sent, and the names the `init` line, `modelUsage` and
`get_context_usage` give. A `[1m]` stays in the names reported, never in requests; retired
Opus ids go to the newest Opus; ids and aliases are read in any case. The real SDK over the
wire."""

from __future__ import annotations

from typing import Any

import pytest
from claude_agent_sdk import ResultMessage, SystemMessage

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text

BUDGET = {"type": "enabled", "budget_tokens": 31_999}
ADAPTIVE = {"type": "adaptive"}


@pytest.mark.parametrize(
    ("spec", "sent", "beta", "thinking", "cap", "named", "window"),
    [
        # Before, `[1m]` was dropped from the names reported.
        ("claude-sonnet-4-6[1m]", "claude-sonnet-4-6", True, ADAPTIVE, 32_000,
         "claude-sonnet-4-6[1m]", 1_000_000),
        ("CLAUDE-SONNET-4-6[1M]", "claude-sonnet-4-6", True, ADAPTIVE, 32_000,
         "CLAUDE-SONNET-4-6[1m]", 1_000_000),
        ("claude-sonnet-4-5[1m][1m]", "claude-sonnet-4-5", True, BUDGET, 32_000,
         "claude-sonnet-4-5[1m]", 1_000_000),
        # A model that runs in 1M without the beta: named as it is, no beta sent.
        ("sonnet[1m]", "claude-sonnet-5-5", False, ADAPTIVE, 128_000,
         "claude-sonnet-5-5", 1_000_000),
        # Before, retired Opus ids were sent as they are (the API refuses them).
        ("claude-opus-4-1", "claude-opus-5-5", False, ADAPTIVE, 128_000,
         "claude-opus-5-5", 1_000_000),
        ("Claude-Opus-4-1[1m]", "claude-opus-5-5", False, ADAPTIVE, 128_000,
         "claude-opus-5-5", 1_000_000),
        ("claude-opus-4-20250514", "claude-opus-5-5", False, ADAPTIVE, 128_000,
         "claude-opus-5-5", 1_000_000),
        # Before, an id in capitals went to the OpenAI endpoint, an alias too.
        ("CLAUDE-SONNET-4-5", "CLAUDE-SONNET-4-5", False, BUDGET, 32_000,
         "CLAUDE-SONNET-4-5", 200_000),
        ("Sonnet", "claude-sonnet-5-5", False, ADAPTIVE, 128_000, "claude-sonnet-5-5", 1_000_000),
        # Before, 3.7 was asked to think; Claude Code asks it for no thinking.
        ("claude-3-7-sonnet-20250219", "claude-3-7-sonnet-20250219", False, None, 32_000,
         "claude-3-7-sonnet-20250219", 200_000),
        ("claude-3-5-haiku-20241022", "claude-3-5-haiku-20241022", False, None, 8_192,
         "claude-3-5-haiku-20241022", 200_000),
    ],
)  # fmt: skip
async def test_a_model_is_sent_and_named_as_claude_code_does(
    sdk: SdkRun,
    fake_model: FakeModelServer,
    spec: str,
    sent: str,
    beta: bool,
    thinking: dict[str, Any] | None,
    cap: int,
    named: str,
    window: int,
) -> None:
    fake_model.script(reply(text("a")))
    async with sdk.client(model=spec) as client:
        await client.query("hi")
        messages = [m async for m in client.receive_response()]
        usage = await client.get_context_usage()
    [request] = fake_model.requests
    assert (request.path, request.body["model"], request.body["max_tokens"]) == (
        "/v1/messages",
        sent,
        cap,
    )
    assert request.body.get("thinking") == thinking
    assert ("context-1m-2025-08-07" in request.headers.get("anthropic-beta", "")) is beta
    [init] = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init"]
    [result] = [m for m in messages if isinstance(m, ResultMessage)]
    assert result.model_usage is not None
    limits = {k: (v["contextWindow"], v["maxOutputTokens"]) for k, v in result.model_usage.items()}
    assert (init.data["model"], limits) == (named, {named: (window, cap)})
    # Claude Code's point: the window less the reply's room (at most 20000) and 13000.
    point = window - min(cap, 20_000) - 13_000
    assert (usage["model"], usage["maxTokens"], usage["autoCompactThreshold"]) == (
        named,
        window,
        point,
    )
    sdk.assert_lines_parse()
