"""tether's own state is not a command's doing: where the workspace holds tether's home (the
workspace is the home directory, or TETHER_HOME lies in it), the start-file sweep leaves the
run record, the transcript and the event log tether writes while a command runs where they
are, and tells the model nothing; a file a command makes where it may write is still swept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, text, tool_use
from tether.testing.cli_runner import run_cli_process

from .conftest import needs_bwrap

pytestmark = needs_bwrap


def disabled_in(root: Path) -> list[str]:
    return sorted(
        os.path.relpath(os.path.join(d, n), root)
        for d, dirs, files in os.walk(root)
        for n in (*dirs, *files)
        if ".tether-disabled" in n
    )


def run_bash(
    model_env: FakeModelServer, workspace: Path, home: Path, tether_home: Path, command: str
) -> str:
    """`tether -p` in `workspace` whose model runs `command`: the tool result it was sent."""
    model_env.script(tool_use("Bash", command=command), text("done"))
    env = {**os.environ, "HOME": str(home), "TETHER_HOME": str(tether_home)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    result = run_cli_process(
        ["-p", "go", "--permission-mode", "bypassPermissions"], env=env, cwd=workspace
    )
    assert (result.exit_code, result.stdout.strip()) == (0, "done"), result.stderr
    [answered] = [r for r in model_env.requests if r.tool_results()]
    [tool_result] = answered.tool_results()
    return tool_result


@pytest.mark.parametrize("layout", ["workspace-is-home", "tether-home-in-workspace"])
def test_tethers_own_state_is_not_moved_aside(
    model_env: FakeModelServer, workspace: Path, home: Path, layout: str
) -> None:
    """The measured defect: with the workspace the home directory, `echo hi` came back with a
    note that it made `~/.tether/runs/<id>.jsonl`, which was renamed `*.tether-disabled`."""
    if layout == "workspace-is-home":
        home = workspace
    tether_home = workspace / ".tether"
    assert run_bash(model_env, workspace, home, tether_home, "echo hi") == "hi"
    assert disabled_in(workspace) == []


def test_a_commands_project_config_is_still_swept_in_a_home_workspace(
    model_env: FakeModelServer, workspace: Path
) -> None:
    """A project's `.tether/settings.json` a command makes in a folder of the home (which it
    may write) is moved aside and named; tether's own files beside it are left alone."""
    (workspace / "proj").mkdir()  # a folder of the home: writable, unlike the home itself
    made = workspace / "proj" / ".tether" / "settings.json"
    command = f"mkdir -p {made.parent} && echo '{{}}' > {made} && echo made"
    tool_result = run_bash(model_env, workspace, workspace, workspace / ".tether", command)
    assert tool_result.startswith("made\n\n[files that start programs"), tool_result
    assert str(made) in tool_result
    assert ".tether/runs" not in tool_result
    assert disabled_in(workspace) == ["proj/.tether/settings.json.tether-disabled"]
