"""A resumed or forked session's result through the real Claude Agent SDK, as Claude Code's
(measured with its CLI against the same fake model): `modelUsage` goes on from what the
session's earlier runs used and cost, as `total_cost_usd` and `duration_api_ms` do, while
`usage` and `duration_ms` are this turn's."""

from __future__ import annotations

from typing import Any

import pytest
from claude_agent_sdk import ResultMessage

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text

MODEL = "claude-sonnet-4-5"


def _figures(result: ResultMessage) -> dict[str, Any]:
    assert result.model_usage is not None
    assert result.usage is not None
    [(name, entry)] = result.model_usage.items()
    return {
        "model": name,
        "tokens": (entry["inputTokens"], entry["outputTokens"]),
        "turn_tokens": (result.usage["input_tokens"], result.usage["output_tokens"]),
        "cost": entry["costUSD"],
    }


async def test_model_usage_goes_on_after_continue_and_fork(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("one"), usage={"input_tokens": 10_000, "output_tokens": 1000}))
    first = result_of(await sdk.query("first", model=MODEL))
    fake_model.script(reply(text("two"), usage={"input_tokens": 20_000, "output_tokens": 500}))
    second = result_of(await sdk.query("second", model=MODEL, continue_conversation=True))
    fake_model.script(reply(text("three"), usage={"input_tokens": 30_000, "output_tokens": 200}))
    forked = result_of(
        await sdk.query("third", model=MODEL, resume=first.session_id, fork_session=True)
    )

    assert second.session_id == first.session_id
    assert forked.session_id != first.session_id
    said = [_figures(r) for r in (first, second, forked)]
    totals = [r.total_cost_usd or 0.0 for r in (first, second, forked)]
    assert said == [
        {
            "model": MODEL,
            "tokens": (10_000, 1000),
            "turn_tokens": (10_000, 1000),
            "cost": pytest.approx(totals[0], abs=1e-5),
        },
        {
            "model": MODEL,
            "tokens": (30_000, 1500),
            "turn_tokens": (20_000, 500),
            "cost": pytest.approx(totals[1], abs=1e-5),
        },
        {
            "model": MODEL,
            "tokens": (60_000, 1700),
            "turn_tokens": (30_000, 200),
            "cost": pytest.approx(totals[2], abs=1e-5),
        },
    ]
    assert 0 < totals[0] < totals[1] < totals[2]


async def test_a_resume_on_another_model_keeps_what_the_earlier_model_cost(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    """The earlier runs' calls are priced at their own model's rates, not at the model the
    session is resumed with (a Sonnet session resumed on Haiku said its Sonnet calls cost a
    third of what the first result said, and its total fell)."""
    fake_model.script(reply(text("one"), usage={"input_tokens": 10_000, "output_tokens": 1000}))
    first = result_of(await sdk.query("first", model=MODEL))
    fake_model.script(reply(text("two"), usage={"input_tokens": 20_000, "output_tokens": 500}))
    second = result_of(
        await sdk.query("second", model="claude-haiku-4-5", continue_conversation=True)
    )

    assert first.model_usage is not None
    assert second.model_usage is not None
    earlier = first.model_usage[MODEL]["costUSD"]
    assert second.model_usage[MODEL] == first.model_usage[MODEL]
    haiku = second.model_usage["claude-haiku-4-5"]["costUSD"]
    assert 0 < haiku < earlier
    assert second.total_cost_usd == pytest.approx(earlier + haiku, abs=1e-5)
