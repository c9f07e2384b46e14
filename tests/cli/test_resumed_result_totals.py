"""A resumed session's json result counts what it had spent before, as Claude Code's, whose
totals a resume restores: `-c -p /cost --output-format json` gives the session's cost and API
time (the figures its text says), and a turn's result after `-c` adds its own to them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def _json(tether: Run, *args: str) -> dict[str, Any]:
    ran = tether(*args, "--output-format", "json")
    assert ran.exit_code == 0, ran.stderr
    said: dict[str, Any] = ran.json()
    return said


def test_cost_after_continuing_gives_the_session_figures_in_json(
    fake_model: FakeModelServer, tether: Run
) -> None:
    spent = {"input_tokens": 10_000, "output_tokens": 1000}
    fake_model.script(reply(text("hi"), usage=spent, delay_s=0.2))
    first = _json(tether, "-p", "hello")
    before = first["total_cost_usd"]
    assert before > 0
    cost = _json(tether, "-c", "-p", "/cost")
    figures = (cost["total_cost_usd"], cost["duration_api_ms"], f"${before:.4f}" in cost["result"])
    assert figures == (pytest.approx(before), first["duration_api_ms"], True), cost

    fake_model.script(reply(text("more"), usage=spent))
    more = _json(tether, "-c", "-p", "more")
    # `modelUsage` goes on from the earlier runs, as Claude Code's: it adds up to the total
    # (each figure is rounded to six places, as Claude Code's are: sums may differ by one in
    # the last place), the earlier run's tokens and this one's.
    [(_, entry)] = more["modelUsage"].items()
    total = more["total_cost_usd"]
    said = (more["result"], entry["costUSD"], entry["inputTokens"], total > before)
    assert said == ("more", pytest.approx(total, abs=2e-6), 20_000, True)
    assert more["duration_api_ms"] >= first["duration_api_ms"]
