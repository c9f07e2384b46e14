"""What a session spent outside its own model calls (subagents, compaction summaries) is in its
file, so a resumed session counts it: in its cost, and against --max-budget-usd."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.store import list_sessions
from tether.testing import FakeModelServer, http_error, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def usage(input_tokens: int, output_tokens: int = 0) -> dict[str, int]:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def test_a_resumed_session_counts_its_subagents_and_summaries(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    # claude-sonnet-5-5: $2 per million input tokens, $10 per million output tokens.
    task = tool_use("Task", description="job", prompt="do the job", subagent_type="general-purpose")
    fake_model.script(
        reply(task, usage=usage(1000, 100)),  # $0.003
        reply(text("job done"), usage=usage(100_000)),  # the subagent: $0.2
        reply(tool_use("Bash", command="echo hi"), usage=usage(9000)),  # $0.018
        http_error(400, "prompt is too long: 1100000 tokens > 1000000 maximum"),  # compact
        reply(text("SUMMARY: a job was done."), usage=usage(300_000)),  # the summary: $0.6
        reply(text("all done"), usage=usage(10)),  # $0.00002
    )
    first = tether("-p", "delegate the job", "--output-format", "json")
    assert first.exit_code == 0, first.stderr
    assert first.json()["total_cost_usd"] == pytest.approx(0.82102)
    [info] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    spends = [json.loads(line) for line in info.path.read_text().splitlines()]
    assert [e["costUSD"] for e in spends if e["type"] == "spend"] == pytest.approx([0.2, 0.6])

    asked = len(fake_model.requests)
    stopped = tether("-c", "-p", "more", "--max-budget-usd", "0.5", "--output-format", "json")
    assert stopped.exit_code == 1, stopped.stderr
    assert stopped.json()["subtype"] == "error_max_budget_usd"
    assert stopped.json()["errors"] == ["Reached maximum budget ($0.5)"]  # Claude Code's words
    assert len(fake_model.requests) == asked  # stopped before asking the model

    fake_model.script(reply(text("one more"), usage=usage(10)))
    more = tether("-c", "-p", "more", "--max-budget-usd", "0.9", "--output-format", "json")
    assert more.exit_code == 0, more.stderr
    assert more.json()["result"] == "one more"


def test_a_budget_over_a_model_of_unknown_prices_is_said_to_be_unenforceable(
    fake_model: FakeModelServer, tether: Run
) -> None:
    """The catalogue does not price it: its spend counts as $0, and the user who set a budget
    learns that no budget can stop the session (a local server's model, free, says nothing)."""
    fake_model.script(reply(text("done")), reply(text("done")))
    unknown = tether("-p", "go", "--model", "claude-next-9", "--max-budget-usd", "0.0001")
    assert unknown.exit_code == 0, unknown.stderr
    assert (
        "tether: the prices of claude-next-9 are unknown to tether: its use counts as $0, "
        "so --max-budget-usd cannot stop this session"
    ) in unknown.stderr
    known = tether("-p", "go", "--max-budget-usd", "5")
    assert known.exit_code == 0, known.stderr
    assert "prices" not in known.stderr


def test_a_model_of_unknown_prices_is_said_to_count_as_nothing_rather_than_cost_nothing(
    fake_model: FakeModelServer, tether: Run
) -> None:
    """Without a budget too: the json's `total_cost_usd` of 0 and `/cost`'s $0.0000 would
    otherwise read as a free session; the start says why, and `/cost` names the model."""
    fake_model.script(reply(text("done"), usage=usage(1000, 10)))
    run = tether("-p", "go", "--model", "claude-next-9", "--output-format", "json")
    assert run.exit_code == 0, run.stderr
    assert run.json()["total_cost_usd"] == 0
    assert run.stderr == (
        "tether: the prices of claude-next-9 are unknown to tether: its use counts as $0 "
        "in /cost and total_cost_usd, which leave it out\n"
    )
    cost = tether("-c", "-p", "/cost", "--model", "claude-next-9")
    assert cost.exit_code == 0, cost.stderr
    assert cost.stdout.splitlines()[-2:] == [
        "  claude-next-9:  1.0k input, 10 output, 0 cache read, 0 cache write ($0.0000)",
        "claude-next-9: no known price, so its use counts as $0 and the total leaves it out",
    ]


@pytest.mark.parametrize(
    ("model", "prices"),
    [("o3", (2.0, 8.0, 0.5)), ("o4-mini", (1.1, 4.4, 0.275)), ("o3-mini", (1.1, 4.4, 0.55))],
)
def test_openai_reasoning_models_are_priced_as_openai_lists_them(
    fake_model: FakeModelServer,
    tether: Run,
    monkeypatch: pytest.MonkeyPatch,
    model: str,
    prices: tuple[float, float, float],
) -> None:
    """o3 and its kin cost $0 before (the catalogue lacked them), in silence."""
    monkeypatch.setenv("OPENAI_BASE_URL", f"{fake_model.url}/v1")
    fake_model.script(reply(text("done")))
    run = tether("-p", "go", "--model", f"openai/{model}", "--output-format", "json")
    assert run.exit_code == 0, run.stderr
    assert "prices" not in run.stderr
    spent = run.json()["usage"]
    plain, out, cached = prices
    expected = (
        spent["input_tokens"] * plain
        + spent["output_tokens"] * out
        + spent["cache_read_input_tokens"] * cached
    ) / 1e6
    assert expected > 0
    assert run.json()["total_cost_usd"] == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(
    ("model", "price_in"),
    [
        ("claude-3-7-sonnet-latest", 3.0),
        ("claude-sonnet-4-20250514", 3.0),
        ("claude-3-5-haiku-latest", 0.8),
        ("CLAUDE-3-OPUS-20240229", 15.0),
    ],
)
def test_a_retired_claude_model_is_priced_as_claude_code_prices_it(
    fake_model: FakeModelServer, tether: Run, model: str, price_in: float
) -> None:
    """Claude models the catalogue lists by no id (dated, `-latest`) are priced by their
    family: they cost $0 before, so `--max-budget-usd` never stopped a session on them."""
    fake_model.script(reply(text("done")))
    run = tether("-p", "go", "--model", model, "--output-format", "json")
    assert run.exit_code == 0, run.stderr
    assert "prices" not in run.stderr
    usage = json.loads(run.stdout)["usage"]
    spent = (
        usage["input_tokens"] * price_in
        + usage["cache_creation_input_tokens"] * price_in * 1.25
        + usage["cache_read_input_tokens"] * price_in * 0.1
        + usage["output_tokens"] * price_in * 5
    ) / 1e6
    assert json.loads(run.stdout)["total_cost_usd"] == pytest.approx(spent, abs=1e-6)  # 6 places
