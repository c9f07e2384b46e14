"""Task as a session built by the CLI offers it: the transcript is kept beside the session's
file, the subagent's spend is in the result, and none of its work is in the parent's requests."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.store import list_sessions
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

from .conftest import MAIN, Router, requests_of

Run = Callable[..., CliResult]


def test_an_explore_task_from_the_cli(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("the key is 7\n")
    routes = Router()
    routes.add(
        MAIN,
        reply(
            tool_use(
                "Task",
                description="find the key",
                prompt="find-key: read notes.txt and report the key",
                subagent_type="Explore",
            )
        ),
        reply(text("The key is 7.")),
    )
    routes.add("find-key", reply(tool_use("Read", file_path="notes.txt")), reply(text("7")))
    routes.install(fake_model)
    result = tether("-p", "what is the key?", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["result"] == "The key is 7."

    names = [MAIN, "find-key"]
    main_requests = requests_of(fake_model, MAIN, names)
    child_requests = requests_of(fake_model, "find-key", names)
    assert len(child_requests) == 2
    answer = main_requests[1].tool_results()[0]
    assert answer.startswith("7\n\n[Explore subagent: 1 tool call,")
    # What the subagent read never reaches the main agent; only its answer does.
    assert "the key is 7" not in json.dumps([r.messages() for r in main_requests])
    all_output = sum(r.usage["output_tokens"] for r in fake_model.requests)  # type: ignore[index]
    assert body["usage"]["output_tokens"] == all_output

    [session] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    [transcript] = (session.path.parent / session.session_id / "subagents").glob("agent-*.jsonl")
    kinds = [json.loads(line)["type"] for line in transcript.read_text().splitlines()]
    assert kinds == ["user", "title", "assistant", "user", "assistant"]


def test_subagent_limits_come_from_settings_and_bad_ones_are_named(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    (workspace / ".tether").mkdir()
    settings = workspace / ".tether" / "settings.json"
    settings.write_text('{"tether": {"subagents": {"maxDepth": 0}}}')
    fake_model.script(reply(text("ran")))
    result = tether("-p", "hi")
    assert (result.exit_code, result.stdout) == (0, "ran\n"), result.stderr  # the key left out
    assert (
        f'settings file {settings}: "tether.subagents.maxDepth" must be a whole number of levels '
        "from 1 to 100, not 0; ignored, as if the file did not set it; the rest of the file "
        "is in effect"
    ) in result.stderr
    settings.write_text('{"tether": {"subagents": {"depth": 1}}}')
    assert "tether.subagents.depth is not a setting" in tether("-p", "hi").stderr


def test_a_subagents_compaction_counts_in_the_cost(
    fake_model: FakeModelServer, tether: Run, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", "10000")
    routes = Router()
    routes.add(
        MAIN,
        reply(
            tool_use(
                "Task",
                description="long job",
                prompt="long-job: echo a few times",
                subagent_type="general-purpose",
            )
        ),
        reply(text("all done")),
    )
    # The subagent's context fills up: its next call compacts first (a summary request).
    routes.add(
        "long-job",
        reply(tool_use("Bash", command="echo one")),
        reply(tool_use("Bash", command="echo two")),
        reply(tool_use("Bash", command="echo three"), usage={"input_tokens": 9000}),
        reply(text("SUMMARY: echoed three times.")),
        reply(text("echoed")),
    )
    routes.install(fake_model)
    result = tether("-p", "go", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    summaries = [r for r in fake_model.requests if "summar" in r.last_user_text().lower()]
    assert len(summaries) == 1
    usage = result.json()["usage"]
    assert usage["output_tokens"] == sum(r.usage["output_tokens"] for r in fake_model.requests)  # type: ignore[index]


def test_custom_agents_are_listed_in_a_reminder_once_not_in_the_task_tool(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    agents = workspace / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews a diff for bugs.\n---\nYou review.\n"
    )
    fake_model.script(reply(text("one")), reply(text("two")))
    assert tether("-p", "first").exit_code == 0
    assert tether("-p", "--continue", "second").exit_code == 0

    first, second = fake_model.requests
    [task] = [t for t in first.body["tools"] if t["name"] == "Agent"]
    assert "reviewer" not in task["description"]
    assert "- Explore: " in task["description"]
    listing = first.agent_listing_text()
    assert listing is not None
    assert "- reviewer: Reviews a diff for bugs." in listing
    assert first.messages()[0]["content"][0]["text"] == listing
    assert first.last_user_text() == "first"
    # The conversation holds it already: the next prompt does not repeat it.
    said = json.dumps(second.messages())
    assert said.count("Available agent types for the Agent tool") == 1
    assert second.last_user_text() == "second"


def test_a_subagent_that_may_start_subagents_is_told_the_custom_agents(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    agents = workspace / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text(
        "---\nname: reviewer\ndescription: Reviews a diff for bugs.\n---\nYou review.\n"
    )
    routes = Router()
    task = tool_use(
        "Task", description="d", prompt="sub-route: go", subagent_type="general-purpose"
    )
    routes.add(MAIN, reply(task), reply(text("done")))
    routes.add("sub-route", reply(text("went")))
    routes.install(fake_model)
    assert tether("-p", "delegate").exit_code == 0
    [child] = requests_of(fake_model, "sub-route", [MAIN, "sub-route"])
    [task_spec] = [t for t in child.body["tools"] if t["name"] == "Agent"]
    assert "reviewer" not in task_spec["description"]
    listing = child.agent_listing_text()
    assert listing is not None
    assert "- reviewer: Reviews a diff for bugs." in listing
