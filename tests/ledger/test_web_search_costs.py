"""Web searches the endpoint runs are counted and priced ($10 per 1,000, on top of tokens) as
the API reports them (`usage.server_tool_use.web_search_requests`): in the result's `usage`,
`modelUsage[...].webSearchRequests`, `total_cost_usd`, and the ledger; the fake model server
reports them as the real API does."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use, web_search
from tether.testing.cli_runner import CliResult

from .conftest import cost_json, rows
from .formula import SONNET

Run = Callable[..., CliResult]

SEARCH_USD = 0.01
ROUNDED = 1.5e-6
"""How far two figures may differ when one is rounded to the micro-dollar and the other is
not, or both are, each on its own side of a half (0.043638 - 0.043637 is a hair over 1e-6 in
binary floating point; the workspace's path, in the prompt, moves the token counts run to run)."""


def _token_cost(usage: dict[str, int]) -> float:
    return (
        usage.get("input_tokens", 0) * SONNET["input"]
        + usage.get("output_tokens", 0) * SONNET["output"]
        + usage.get("cache_read_input_tokens", 0) * SONNET["cache_read"]
        + usage.get("cache_creation_input_tokens", 0) * SONNET["cache_write"]
    ) / 1e6


def test_searches_are_counted_and_priced_in_the_result_and_the_ledger(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.script(
        reply(tool_use("WebSearch", query="tether release"), usage={"output_tokens": 20}),
        reply(
            web_search("tether release", ("Tether 2.0", "https://example.com/t2")),
            web_search("tether 2.0 date", ("Changelog", "https://example.com/changes")),
            text("May."),
            usage={"input_tokens": 900, "output_tokens": 40},
        ),
        reply(text("It came out in May."), usage={"input_tokens": 1200, "output_tokens": 10}),
    )
    done = tether("-p", "when?", "--output-format", "stream-json", "--verbose")
    assert done.exit_code == 0, done.stderr
    [result] = [line for line in done.json_lines() if line["type"] == "result"]
    # What the fake server told, as the API tells it.
    assert [r.usage for r in fake_model.requests][1] == {
        "input_tokens": 900,
        "output_tokens": 40,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }
    tokens = sum(_token_cost(r.usage or {}) for r in fake_model.requests)
    assert result["total_cost_usd"] == pytest.approx(tokens + 2 * SEARCH_USD, abs=ROUNDED)
    assert result["usage"]["server_tool_use"] == {"web_search_requests": 2, "web_fetch_requests": 0}
    [(model, used)] = result["modelUsage"].items()
    assert model == "claude-sonnet-5-5"
    assert used["webSearchRequests"] == 2
    assert used["costUSD"] == pytest.approx(result["total_cost_usd"], abs=ROUNDED)
    assert used["inputTokens"] == sum(
        (r.usage or {}).get("input_tokens", 0) for r in fake_model.requests
    )

    calls = rows("model_calls")
    assert len(calls) == 3  # the search request is one of the session's calls
    assert sum(c["cost"] for c in calls) == pytest.approx(result["total_cost_usd"], abs=ROUNDED)
    by_model = cost_json("--by", "model")
    assert by_model["total_usd"] == pytest.approx(result["total_cost_usd"], abs=ROUNDED)


def test_the_count_survives_in_the_session_file_and_a_resume(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.script(
        reply(tool_use("WebSearch", query="query"), usage={"output_tokens": 5}),
        reply(
            web_search("query", ("A", "https://example.com/a")),
            text("A."),
            usage={"output_tokens": 5},
        ),
        reply(text("done"), usage={"output_tokens": 5}),
    )
    first = tether("-p", "search", "--output-format", "json")
    assert first.exit_code == 0, first.stderr
    spent = first.json()["total_cost_usd"]
    assert spent == pytest.approx(
        sum(_token_cost(r.usage or {}) for r in fake_model.requests) + SEARCH_USD, abs=ROUNDED
    )
    fake_model.script(text("again"))
    budget = tether(
        "-c", "-p", "more", "--output-format", "json", "--max-budget-usd", f"{spent:.6f}"
    )
    assert budget.json()["subtype"] == "error_max_budget_usd", budget.stdout
