"""Which hook inputs carry `permission_mode`, as Claude Code's do (its 2.1.332 CLI builds the
input of the events acting in a turn with the mode, and the session's own without): a live
session under acceptEdits, real hook commands that save their input."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.hooks.helpers import command_hook, on
from tests.hooks.wire import dump_command, dumped, write_settings
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolBatch",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "SessionEnd",
)


@pytest.mark.usefixtures("trusted_workspace")
def test_the_events_of_a_turn_carry_the_mode_and_the_sessions_own_do_not(
    fake_model: FakeModelServer, tether: Run, workspace: Path, tmp_path: Path
) -> None:
    dumps = tmp_path / "dumps"
    write_settings(workspace, {e: on("", command_hook(dump_command(dumps))) for e in EVENTS})
    fake_model.script(
        reply(tool_use("Write", file_path="a.txt", content="alpha\n")),
        reply(tool_use("Task", description="d", prompt="p", subagent_type="general-purpose")),
        reply(text("sub answer")),
        reply(text("all done")),
    )
    result = tether("-p", "go", "--permission-mode", "acceptEdits")
    assert (result.exit_code, result.stdout) == (0, "all done\n"), result.stderr
    modes = {d["hook_event_name"]: d.get("permission_mode", "(none)") for d in dumped(dumps)}
    assert modes == {
        "SessionStart": "(none)",
        "UserPromptSubmit": "acceptEdits",
        "PreToolUse": "acceptEdits",
        "PostToolUse": "acceptEdits",
        "PostToolBatch": "acceptEdits",
        "SubagentStart": "(none)",
        "SubagentStop": "acceptEdits",
        "Stop": "acceptEdits",
        "SessionEnd": "(none)",
    }
