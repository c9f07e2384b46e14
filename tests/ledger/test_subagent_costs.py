"""A subagent's model calls and tool calls are in the ledger under its own agent id, at its
own model's prices; the Task call that started it is the main agent's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.conftest import MAIN, Router, agent_text, requests_of, write_agent
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

from .conftest import cost_json, rows
from .formula import SONNET, expected_tools

Run = Callable[..., CliResult]
HAIKU = {"input": 0.10, "output": 0.50, "cache_write": 0.125, "cache_read": 0.01}
"""claude-haiku-5-5's list prices per million tokens."""


def test_a_subagents_spend_is_its_own_at_its_models_prices(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path
) -> None:
    workspace = trusted_workspace
    write_agent(workspace / ".tether/agents", "finder.md", agent_text("finder", model="haiku"))
    (workspace / "notes.txt").write_text("the key is 7\n" * 50)
    routes = Router()
    routes.add(
        MAIN,
        reply(
            tool_use(
                "Task",
                description="find the key",
                prompt="find-key: read notes.txt and report the key",
                subagent_type="finder",
            ),
            usage={"input_tokens": 900, "output_tokens": 40},
        ),
        reply(text("The key is 7."), usage={"input_tokens": 1000, "output_tokens": 6}),
    )
    routes.add(
        "find-key",
        reply(
            tool_use("Read", file_path="notes.txt"),
            usage={"input_tokens": 500, "cache_creation_input_tokens": 300, "output_tokens": 20},
        ),
        reply(
            text("7"),
            usage={
                "input_tokens": 200,
                "cache_read_input_tokens": 800,
                "cache_creation_input_tokens": 0,
                "output_tokens": 2,
            },
        ),
    )
    routes.install(fake_model)
    result = tether("-p", "what is the key?", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    body = result.json()

    [subagent] = rows("subagents")
    agent_id = subagent["agent_id"]
    assert subagent == {
        "session_id": body["session_id"],
        "agent_id": agent_id,
        "call_id": "toolu_1",
        "agent_type": "finder",
        "task_id": None,
        "status": "completed",
        "duration_ms": subagent["duration_ms"],
    }
    calls = rows("model_calls")
    assert [(c["agent_id"], c["model"]) for c in calls] == [
        ("main", "claude-sonnet-5-5"),
        (agent_id, "claude-haiku-5-5"),
        (agent_id, "claude-haiku-5-5"),
        ("main", "claude-sonnet-5-5"),
    ]
    for call in calls:
        rates = SONNET if call["agent_id"] == "main" else HAIKU
        assert call["cost"] == pytest.approx(
            (
                call["input_tokens"] * rates["input"]
                + call["cache_read_tokens"] * rates["cache_read"]
                + call["cache_write_tokens"] * rates["cache_write"]
                + call["output_tokens"] * rates["output"]
            )
            / 1e6
        )
    assert sum(c["cost"] for c in calls) == pytest.approx(body["total_cost_usd"], abs=1e-6)

    names = [MAIN, "find-key"]
    tools = {(t["agent_id"], t["tool"]): t for t in rows("tool_calls")}
    assert set(tools) == {("main", "Task"), (agent_id, "Read")}
    for (who, _), found in tools.items():
        expected = expected_tools(
            requests_of(fake_model, MAIN if who == "main" else "find-key", names)
        )
        [charge] = expected.calls.values()
        rates = SONNET if who == "main" else HAIKU
        assert (
            found["output_tokens"],
            found["input_tokens"],
            found["cache_read_tokens"],
            found["cache_write_tokens"],
        ) == (
            charge.output_tokens,
            charge.input_tokens,
            charge.cache_read_tokens,
            charge.cache_write_tokens,
        )
        total = sum(
            found[k] for k in ("output_cost", "input_cost", "cache_read_cost", "cache_write_cost")
        )
        assert total == pytest.approx(charge.cost(rates))
    # The Read result lay in the subagent's second request: part cache read, part plain.
    read = tools[(agent_id, "Read")]
    assert read["cache_read_tokens"] > 0
    assert read["input_tokens"] > 0

    by_agent = cost_json("--by", "agent")
    assert {line["key"]: line["calls"] for line in by_agent["lines"]} == {"main": 2, agent_id: 2}
    assert by_agent["total_usd"] == pytest.approx(body["total_cost_usd"], abs=1e-6)
