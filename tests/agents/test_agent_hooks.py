"""Hooks in a subagent's front matter (Claude Code's subagent-scoped hooks) run for that
agent's calls only; its `Stop` hook fires as it ends; an untrusted workspace's agent runs none."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

from .conftest import MAIN, Router, requests_of

Run = Callable[..., CliResult]

AGENT = """\
---
name: guarded
description: Reads files under a guard.
hooks:
  PreToolUse:
    - matcher: Read
      hooks:
        - type: command
          command: >-
            cat >> "$CLAUDE_PROJECT_DIR/pre.log"; echo >> "$CLAUDE_PROJECT_DIR/pre.log";
            echo "guard says no" >&2; exit 2
  Stop:
    - hooks:
        - type: command
          command: 'cat > "$CLAUDE_PROJECT_DIR/stop.log"'
---
You read files.
"""


def _script(fake_model: FakeModelServer) -> None:
    routes = Router()
    routes.add(
        MAIN,
        reply(tool_use("Read", file_path="notes.txt")),
        reply(
            tool_use(
                "Task", description="read", prompt="sub: read notes.txt", subagent_type="guarded"
            )
        ),
        reply(text("Done.")),
    )
    routes.add("sub", reply(tool_use("Read", file_path="notes.txt")), reply(text("Blocked.")))
    routes.install(fake_model)


def _write_agent(workspace: Path) -> None:
    (workspace / "notes.txt").write_text("NOTES\n")
    agents = workspace / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "guarded.md").write_text(AGENT)


def test_an_agents_hooks_run_for_its_calls_only(
    fake_model: FakeModelServer, tether: Run, trusted_workspace: Path
) -> None:
    workspace = trusted_workspace
    _write_agent(workspace)
    _script(fake_model)
    result = tether("-p", "go", "--output-format", "json")
    assert result.exit_code == 0, result.stderr

    names = [MAIN, "sub"]
    main_requests = requests_of(fake_model, MAIN, names)
    sub_requests = requests_of(fake_model, "sub", names)
    # The main agent's Read ran: no hook of the agent's is the session's.
    assert main_requests[1].tool_results() == ["     1\tNOTES"]
    # The subagent's Read was blocked by its own hook, with the hook's reason.
    [blocked] = sub_requests[1].tool_results()
    assert "guard says no" in blocked
    [pre] = [
        json.loads(line)
        for line in (workspace / "pre.log").read_text().split("\n\n")
        if line.strip()
    ]
    assert pre["hook_event_name"] == "PreToolUse"
    assert pre["tool_name"] == "Read"
    assert pre["agent_type"] == "guarded"
    stop = json.loads((workspace / "stop.log").read_text())
    assert stop["hook_event_name"] == "SubagentStop"
    assert stop["agent_type"] == "guarded"
    assert stop["last_assistant_message"] == "Blocked."


def test_an_untrusted_workspaces_agent_runs_no_hooks(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _write_agent(workspace)
    _script(fake_model)
    result = tether("-p", "go", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    sub_requests = requests_of(fake_model, "sub", [MAIN, "sub"])
    assert sub_requests[1].tool_results() == ["     1\tNOTES"]
    assert not (workspace / "pre.log").exists()
    assert not (workspace / "stop.log").exists()
