"""Claude Code's current tool names in hook matchers and permission rules, over the wire: a
repository written for Claude Code (`Agent`, `TaskStop`...) reaches tether's tools."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hooks.helpers import command_hook, on
from tests.hooks.wire import dump_command, dumped, write_settings
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


@pytest.mark.usefixtures("trusted_workspace")
def test_an_agent_matcher_stops_a_subagent_as_in_claude_code(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tmp_path: Path
) -> None:
    dumps = tmp_path / "dumps"
    write_settings(
        workspace,
        {
            "PreToolUse": on("Agent", command_hook("echo 'no subagents here' >&2; exit 2")),
            "PostToolUse": on("^Ag", command_hook(dump_command(dumps))),
            "SubagentStart": on("", command_hook(dump_command(dumps))),
        },
    )
    fake_model.script(
        reply(tool_use("Task", description="d", prompt="p", subagent_type="general-purpose")),
        reply(text("ok")),
    )
    result = tether("-p", "delegate")
    assert result.exit_code == 0, result.stderr
    [blocked] = fake_model.requests[1].tool_results()
    assert "no subagents here" in blocked
    assert len(fake_model.requests) == 2  # no subagent ever asked the model
    assert dumped(dumps) == []


@pytest.mark.usefixtures("trusted_workspace")
def test_renamed_tools_in_matchers_and_rules(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tmp_path: Path
) -> None:
    dumps = tmp_path / "dumps"
    write_settings(
        workspace,
        {"PreToolUse": on("TaskOutput|TaskStop", command_hook(dump_command(dumps)))},
        permissions={"deny": ["TaskStop"]},
    )
    fake_model.script(
        reply(tool_use("BashOutput", bash_id="none"), tool_use("KillShell", shell_id="none")),
        reply(text("ok")),
    )
    result = tether("-p", "look", "--permission-mode", "default")
    assert result.exit_code == 0, result.stderr
    # The deny rule on TaskStop removed KillShell from what the model is offered.
    assert "KillShell" not in fake_model.requests[0].tool_names()
    assert "BashOutput" in fake_model.requests[0].tool_names()
    # (Both calls run at once: their hooks in either order.) The hooks are told Claude Code's
    # names for the tools, as Claude Code tells them.
    assert sorted(d["tool_name"] for d in dumped(dumps)) == ["TaskOutput", "TaskStop"]
