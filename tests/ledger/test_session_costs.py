"""A session's model calls and tool calls in the ledger, priced as documented (`meter.py`):
checked against the formula written again over the requests the fake server received."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, RecordedRequest, reply, text, tool_use
from tether.testing.cli_runner import CliResult, run_cli_process

from .conftest import cost, cost_json, rows
from .formula import SONNET, charges_in, expected_tools, sized_blocks

Run = Callable[..., CliResult]


_UNCACHED = {"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
"""Usage with no cache (the fake server's own simulation would cache the prompt)."""


def _sizes(request: RecordedRequest) -> list[int]:
    return [-(-len(result) // 4) for result in request.tool_results()]


def test_tool_calls_cost_their_share_of_output_and_their_results_in_every_later_request(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha " * 400)
    (workspace / "b.txt").write_text("beta " * 120)

    def second(request: RecordedRequest) -> object:
        # No cache write: the blocks end the prompt. B is plain input, A straddles plain
        # input and the cache read.
        size_a, size_b = _sizes(request)
        usage = {
            "input_tokens": size_b + size_a // 2,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 4000,
            "output_tokens": 30,
        }
        return reply(tool_use("Bash", command="cat b.txt"), usage=usage)

    def third(request: RecordedRequest) -> object:
        # A cache write ends at the newest block: A straddles the cache read and the write,
        # B and the newest result are written.
        segments = sized_blocks(request.messages())
        [a] = [i for i, (_, call_id) in enumerate(segments) if call_id == "toolu_1"]
        size_a = segments[a][0]
        after = sum(size for size, _ in segments[a + 1 :])
        usage = {
            "input_tokens": 3,
            "cache_creation_input_tokens": after + size_a // 2,
            "cache_read_input_tokens": 4000,
            "output_tokens": 8,
        }
        return reply(text("done"), usage=usage)

    fake_model.script(
        reply(
            tool_use("Bash", command="cat a.txt"),
            tool_use("Bash", command="cat b.txt"),
            usage={"input_tokens": 10, "cache_creation_input_tokens": 3000, "output_tokens": 60},
        ),
        second,
        third,
    )
    result = tether("-p", "read both", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    body = result.json()

    expected = expected_tools(fake_model.requests)
    assert len(expected.calls) == 3
    session = body["session_id"]
    found = rows("tool_calls")
    assert found == [
        {
            "session_id": session,
            "call_id": call_id,
            "agent_id": "main",
            "task_id": None,
            "tool": charge.tool,
            "model": "claude-sonnet-5-5",
            "is_error": 0,
            "duration_ms": row["duration_ms"],
            "output_tokens": pytest.approx(charge.output_tokens),
            "output_cost": pytest.approx(charge.output_tokens * SONNET["output"] / 1e6),
            "input_tokens": charge.input_tokens,
            "cache_read_tokens": charge.cache_read_tokens,
            "cache_write_tokens": charge.cache_write_tokens,
            "input_cost": pytest.approx(charge.input_tokens * SONNET["input"] / 1e6),
            "cache_read_cost": pytest.approx(charge.cache_read_tokens * SONNET["cache_read"] / 1e6),
            "cache_write_cost": pytest.approx(
                charge.cache_write_tokens * SONNET["cache_write"] / 1e6
            ),
        }
        for (call_id, charge), row in zip(expected.calls.items(), found, strict=True)
    ]
    first = found[0]
    # The case the usage was scripted for: A split between the three rates over two requests.
    assert first["input_tokens"] > 0
    assert first["cache_write_tokens"] > 0
    assert first["cache_read_tokens"] > 0

    calls = rows("model_calls")
    assert [
        (c["input_tokens"], c["cache_read_tokens"], c["cache_write_tokens"], c["output_tokens"])
        for c in calls
    ] == [
        (
            r.usage["input_tokens"],  # type: ignore[index]
            r.usage.get("cache_read_input_tokens", 0),  # type: ignore[union-attr]
            r.usage.get("cache_creation_input_tokens", 0),  # type: ignore[union-attr]
            r.usage["output_tokens"],  # type: ignore[index]
        )
        for r in fake_model.requests
    ]
    for call in calls:
        assert call["cost"] == pytest.approx(
            (
                call["input_tokens"] * SONNET["input"]
                + call["cache_read_tokens"] * SONNET["cache_read"]
                + call["cache_write_tokens"] * SONNET["cache_write"]
                + call["output_tokens"] * SONNET["output"]
            )
            / 1e6
        )
    # The ledger's model calls add up to what the session itself reported.
    assert sum(c["cost"] for c in calls) == pytest.approx(body["total_cost_usd"], abs=1e-6)
    assert rows("sessions") == [
        {
            "session_id": session,
            "model": "claude-sonnet-5-5",
            "cwd": str(workspace.resolve()),
            "task_id": None,
            "team": None,
            "project": str(workspace.resolve()),
        }
    ]

    by_tool = cost_json("--by", "tool")
    [bash] = by_tool["lines"]
    assert (bash["key"], bash["calls"]) == ("Bash", 3)
    assert bash["cost_usd"] == pytest.approx(
        sum(charge.cost(SONNET) for charge in expected.calls.values())
    )
    by_model = cost_json("--by", "model")
    assert [(line["key"], line["calls"]) for line in by_model["lines"]] == [
        ("claude-sonnet-5-5", 3)
    ]
    assert by_model["total_usd"] == pytest.approx(body["total_cost_usd"], abs=1e-6)


def test_the_table_and_the_filters(fake_model: FakeModelServer, tether: Run) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="echo hi"), usage={"input_tokens": 50, "output_tokens": 20}),
        reply(text("ok"), usage={"input_tokens": 80, "output_tokens": 5}),
    )
    assert tether("-p", "hi").exit_code == 0
    table = run_cli_process(["cost", "--by", "day"])  # the real command
    assert table.exit_code == 0, table.stderr
    [session] = {row["session_id"] for row in rows("model_calls")}
    print(table.stdout)
    [today] = [line for line in table.stdout.splitlines() if line.startswith("│ 20")]
    assert "│     2 │" in today  # two model calls
    [bar] = [line for line in table.stdout.splitlines() if line.startswith("  20")]
    assert bar.endswith("█" * 24)  # the only day: the longest bar
    later = cost_json("--since", "2999-01-01")
    assert (later["lines"], later["total_usd"]) == ([], 0)
    assert cost("--since", "2999-01-01").stdout == "nothing recorded since 2999-01-01\n"
    earlier = cost_json("--since", "2000-01-01T00:00", "--by", "session")
    assert [line["key"] for line in earlier["lines"]] == [session]
    bad = cost("--since", "yesterday")
    assert bad.exit_code == 2
    assert "--since 'yesterday': expected a date (2026-12-01) or a time" in bad.stderr


def test_a_resumed_session_goes_on_charging_its_earlier_results(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha " * 100)
    fake_model.script(
        reply(
            tool_use("Bash", command="cat a.txt"),
            usage={**_UNCACHED, "input_tokens": 20, "output_tokens": 8},
        ),
        reply(text("read"), usage={**_UNCACHED, "input_tokens": 900, "output_tokens": 2}),
    )
    first = tether("-p", "read a", "--output-format", "json")
    assert first.exit_code == 0, first.stderr
    [before] = rows("tool_calls")
    size = -(-len(fake_model.requests[1].tool_results()[0]) // 4)
    assert before["input_tokens"] == size  # the newest block of the second request
    fake_model.script(
        reply(
            text("still here"),
            usage={"input_tokens": 10, "cache_read_input_tokens": 5000, "output_tokens": 3},
        )
    )
    again = tether("-c", "-p", "anything else?", "--output-format", "json")
    assert again.exit_code == 0, again.stderr
    assert again.json()["session_id"] == first.json()["session_id"]
    [after] = rows("tool_calls")
    [charge] = expected_tools(fake_model.requests).calls.values()
    assert (after["input_tokens"], after["cache_read_tokens"], after["cache_write_tokens"]) == (
        charge.input_tokens,
        charge.cache_read_tokens,
        charge.cache_write_tokens,
    )
    assert after["cache_read_tokens"] > 0  # charged again in the resumed session's request
    assert [s["session_id"] for s in rows("sessions")] == [first.json()["session_id"]]


def test_a_compactions_summary_call_is_a_model_call_of_the_session(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", "10000")
    fake_model.script(
        reply(tool_use("Bash", command="echo one")),
        reply(tool_use("Bash", command="echo two"), usage={"input_tokens": 9000}),
        reply(text("SUMMARY: echoed twice"), usage={"input_tokens": 700, "output_tokens": 50}),
        reply(text("carried on"), usage={"input_tokens": 300, "output_tokens": 4}),
    )
    result = tether("-p", "go", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    body = result.json()
    assert body["result"] == "carried on"
    calls = rows("model_calls")
    assert [(c["input_tokens"], c["output_tokens"]) for c in calls] == [
        (r.usage["input_tokens"], r.usage["output_tokens"])  # type: ignore[index]
        for r in fake_model.requests
    ]
    assert sum(c["cost"] for c in calls) == pytest.approx(body["total_cost_usd"], abs=1e-6)
    # The first result was compacted away; the second was kept whole with the summary and
    # goes on costing in the request after it. (The summary request is not the conversation's.)
    requests = fake_model.requests
    one, two = rows("tool_calls")
    assert (one["cache_read_tokens"], one["cache_write_tokens"], one["input_tokens"]) == (
        charges_in(requests[1])["toolu_1"]
    )
    assert (two["cache_read_tokens"], two["cache_write_tokens"], two["input_tokens"]) == (
        charges_in(requests[3])["toolu_2"]
    )
    assert sum(charges_in(requests[3])["toolu_2"]) > 0


def test_a_model_of_no_known_price_is_named_not_summed_as_free(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{fake_model.url}/v1")
    usage = {"input_tokens": 1000, "output_tokens": 200}
    fake_model.script(reply(text("local"), usage=usage), reply(text("priced"), usage=usage))
    assert tether("-p", "hi", "--model", "openai/llama-local-7b").exit_code == 0
    assert tether("-p", "hi").exit_code == 0
    body = cost_json("--by", "model")
    assert body["unpriced_models"] == [{"model": "llama-local-7b", "calls": 1}]
    assert body["total_usd"] > 0
    table = cost("--by", "model")
    assert table.exit_code == 0, table.stderr
    assert (
        "llama-local-7b: 1 model call(s) at no known price, counted as $0 (a local server's, "
        "or a model the catalogue lacks): the totals leave them out"
    ) in table.stdout.replace("\n", " ")
    assert cost_json("--by", "model", "--since", "2999-01-01")["unpriced_models"] == []


def test_one_sessions_view_is_its_whole_spend(fake_model: FakeModelServer, tether: Run) -> None:
    """`tether cost --session ID` totals what the session cost (the json result's figure),
    also for a session that ran no tool; `--by tool` still shows the tools' share."""
    fake_model.script(reply(text("no tools"), usage={"input_tokens": 900, "output_tokens": 40}))
    quiet = tether("-p", "hi", "--output-format", "json").json()
    fake_model.script(
        reply(
            tool_use("Bash", command="echo hi"), usage={"input_tokens": 500, "output_tokens": 20}
        ),
        reply(text("ok"), usage={"input_tokens": 800, "output_tokens": 5}),
    )
    busy = tether("-p", "hi", "--output-format", "json").json()
    for body in (quiet, busy):
        view = cost_json("--session", body["session_id"])
        assert (view["by"], [line["key"] for line in view["lines"]]) == (
            "model",
            ["claude-sonnet-5-5"],
        )
        assert view["total_usd"] == pytest.approx(body["total_cost_usd"], abs=1e-6)
    table = cost("--session", quiet["session_id"])
    assert table.exit_code == 0, table.stderr
    assert "claude-sonnet-5-5" in table.stdout
    tools = cost_json("--session", busy["session_id"], "--by", "tool")
    assert [line["key"] for line in tools["lines"]] == ["Bash"]
    assert 0 < tools["total_usd"] < busy["total_cost_usd"]
