"""Background commands through the whole CLI: the model hears that one ended before its next
call, in the middle of a turn; a headless run stops what it left running."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


@pytest.fixture(autouse=True)
def no_sandbox(workspace: Path) -> None:
    """The tests read pids across commands: one pid namespace (tests/sandbox covers bwrap)."""
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "settings.json").write_text('{"sandbox": {"enabled": false}}')


@pytest.mark.usefixtures("trusted_workspace")
def test_a_finished_background_command_is_announced_mid_turn(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    wait = "for i in $(seq 2000); do {test} && break; sleep 0.01; done"
    background = "echo $$ > bg.pid; " + wait.format(test="[ -f go ]") + "; echo built"
    # Returns once the background shell is gone (reaped: kill -0 fails).
    foreground = "touch go; " + wait.format(test="! kill -0 $(cat bg.pid) 2>/dev/null")
    fake_model.script(
        reply(tool_use("Bash", command=background, run_in_background=True)),
        reply(tool_use("Bash", command=foreground)),
        reply(tool_use("BashOutput", bash_id="bash_1")),
        reply(text("the build finished")),
    )
    result = tether("-p", "build it", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    started = fake_model.requests[1].tool_results()[0]
    assert started.startswith("Started background command bash_1")
    assert "bash_1" not in fake_model.requests[1].last_user_text()
    mid_turn = fake_model.requests[2]
    assert mid_turn.tool_result_errors() == [False]
    announced = mid_turn.last_user_text()
    assert "<system-reminder>" in announced
    assert "Background command bash_1" in announced
    assert "exited with code 0" in announced
    output = fake_model.requests[3].tool_results()[0]
    assert output.startswith("built\n")
    assert "exited with code 0" in output
    assert "Background command" not in fake_model.requests[3].last_user_text()  # told once
    assert json.loads(result.stdout)["result"] == "the build finished"


@pytest.mark.usefixtures("trusted_workspace")
def test_a_headless_run_waits_for_its_background_commands_and_leaves_none(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    """As Claude Code's `-p` does (checked on the bundled CLI): the run waits for a background
    command it started, its end wakes a turn of its own, and nothing of it is left running."""
    fake_model.script(
        reply(tool_use("Bash", command="echo $$ > bg.pid; sleep 1", run_in_background=True)),
        reply(
            tool_use(
                "Bash", command="for i in $(seq 500); do [ -s bg.pid ] && break; sleep 0.01; done"
            )
        ),
        reply(text("left it running")),
        reply(text("the server stopped")),
    )
    result = tether("-p", "start the server")
    assert result.exit_code == 0, result.stderr
    assert "the server stopped" in result.stdout
    pid = int((workspace / "bg.pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
