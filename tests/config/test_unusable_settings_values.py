"""A settings value of the right JSON type that cannot be used is left out with a warning naming
the file and the key, and the rest of its file holds: a hook event's block of the wrong shape
(it stopped every run with exit 2), a `permissions.defaultMode` naming no mode and a
`cleanupPeriodDays` that is no positive whole number (both were taken without a word)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult, run_cli


def _settings(workspace: Path, data: object) -> Path:
    path = workspace / ".claude" / "settings.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(data))
    return path


def _tether(workspace: Path, *argv: str) -> CliResult:
    """tether in the workspace with no permission mode of its own: the settings' one holds."""
    return run_cli(["--cwd", str(workspace), *argv])


def _hook_writing(marker: Path) -> list[object]:
    return [{"hooks": [{"type": "command", "command": f"echo ran > {marker}"}]}]


@pytest.mark.parametrize(
    ("groups", "problem"),
    [
        ("notalist", "hooks.PreToolUse: must be a list of matcher groups"),
        ([1], 'hooks.PreToolUse[0]: must be an object with "matcher" and "hooks"'),
        ([{"matcher": "Bash", "hooks": "echo"}], "hooks.PreToolUse[0].hooks: must be a list"),
        ([{"matcher": "Bash", "hooks": [{"type": "command"}]}], "hooks.PreToolUse[0].hooks[0]"),
        ([{"matcher": "Bash", "hooks": [{"type": "shell", "command": "x"}]}], "hooks.PreToolUse"),
    ],
)
def test_a_hook_of_a_known_event_of_the_wrong_shape_refuses_the_start(
    fake_model: FakeModelServer, trusted_workspace: Path, groups: object, problem: str
) -> None:
    marker = trusted_workspace / "prompt-hook-ran"
    path = _settings(
        trusted_workspace,
        {
            "hooks": {"PreToolUse": groups, "UserPromptSubmit": _hook_writing(marker)},
            "env": {"FROM_SETTINGS": "kept"},
        },
    )
    fake_model.script(reply(tool_use("Bash", command="echo $FROM_SETTINGS")), reply(text("done")))
    ran = _tether(trusted_workspace, "-p", "go", "--permission-mode", "bypassPermissions")
    # It may be what guards the allow rules beside it (it was left out, the command ran).
    assert (ran.exit_code, ran.stdout) == (2, ""), ran.stderr
    [error] = ran.stderr.splitlines()
    assert error.startswith(f"tether: settings file {path}: {problem}"), error
    assert error.endswith(
        "; it guards what the file allows, so tether does not start without it: "
        "fix it or move the file away"
    )
    assert not marker.exists()
    assert fake_model.requests == []


def test_an_unknown_hook_event_is_skipped_with_the_known_ones_listed(
    fake_model: FakeModelServer, trusted_workspace: Path
) -> None:
    marker = trusted_workspace / "prompt-hook-ran"
    path = _settings(
        trusted_workspace,
        {"hooks": {"PreToolUze": [], "UserPromptSubmit": _hook_writing(marker)}},
    )
    fake_model.script(reply(text("done")))
    ran = _tether(trusted_workspace, "-p", "go")
    assert (ran.exit_code, ran.stdout) == (0, "done\n"), ran.stderr
    [warning] = ran.stderr.splitlines()
    assert warning.startswith(
        f"tether: warning: settings file {path}: hooks.PreToolUze: unknown hook event"
    ), warning
    assert marker.read_text() == "ran\n"


def test_a_settings_file_given_on_the_command_line_with_broken_hooks_still_stops(
    fake_model: FakeModelServer, model_env: object, workspace: Path, tmp_path: Path
) -> None:
    given = tmp_path / "given.json"
    given.write_text(json.dumps({"hooks": {"PreToolUse": "notalist"}}))
    ran = _tether(workspace, "-p", "go", "--settings", str(given))
    assert (ran.exit_code, ran.stdout, fake_model.requests) == (2, "", []), ran.stderr
    assert "hooks.PreToolUse: must be a list of matcher groups" in ran.stderr


def _write_attempt(fake_model: FakeModelServer, workspace: Path) -> CliResult:
    fake_model.script(
        reply(tool_use("Write", file_path=str(workspace / "out.txt"), content="x")),
        reply(text("done")),
    )
    return _tether(workspace, "-p", "write it")


@pytest.mark.parametrize("mode", ["bogus", "AcceptEdits", "", 3, None])
def test_a_default_mode_naming_no_mode_is_ignored_with_a_warning(
    fake_model: FakeModelServer, trusted_workspace: Path, home: Path, mode: object
) -> None:
    # A lower layer's mode holds, as if the file did not set one.
    user = Path(os.environ["TETHER_HOME"]) / "settings.json"
    user.write_text(json.dumps({"permissions": {"defaultMode": "acceptEdits"}}))
    path = _settings(trusted_workspace, {"permissions": {"defaultMode": mode, "allow": []}})
    ran = _write_attempt(fake_model, trusted_workspace)
    assert (ran.exit_code, ran.stdout) == (0, "done\n"), ran.stderr
    assert (trusted_workspace / "out.txt").read_text() == "x"
    if mode is None:  # not set: nothing to tell
        assert ran.stderr == ""
        return
    assert ran.stderr == (
        f'tether: warning: settings file {path}: "permissions.defaultMode" must be one of '
        '"default", "acceptEdits", "plan", "dontAsk", "bypassPermissions", not '
        f"{json.dumps(mode)}; ignored, as if the file did not set it\n"
    )


def test_a_default_mode_naming_no_mode_leaves_the_default_mode(
    fake_model: FakeModelServer, trusted_workspace: Path
) -> None:
    # "bypassPermissions " (a trailing space) is no mode: the edit is asked, and -p denies it.
    path = _settings(trusted_workspace, {"permissions": {"defaultMode": "bypassPermissions "}})
    ran = _write_attempt(fake_model, trusted_workspace)
    assert (ran.exit_code, ran.stdout) == (0, "done\n"), ran.stderr
    assert not (trusted_workspace / "out.txt").exists()
    assert ran.stderr.startswith(
        f'tether: warning: settings file {path}: "permissions.defaultMode" must be one of'
    ), ran.stderr


@pytest.mark.parametrize("days", ["soon", 0, -1, 1.5, True, [], "30"])
def test_a_cleanup_period_that_is_no_positive_whole_number_is_ignored_with_a_warning(
    fake_model: FakeModelServer, trusted_workspace: Path, days: object
) -> None:
    workspace = trusted_workspace
    path = _settings(workspace, {"cleanupPeriodDays": days, "env": {"FROM_SETTINGS": "kept"}})
    fake_model.script(reply(tool_use("Bash", command="echo $FROM_SETTINGS")), reply(text("done")))
    ran = _tether(workspace, "-p", "go", "--permission-mode", "bypassPermissions")
    assert (ran.exit_code, ran.stdout) == (0, "done\n"), ran.stderr
    assert ran.stderr == (
        f'tether: warning: settings file {path}: "cleanupPeriodDays" must be a whole number '
        f"of days from 1, not {json.dumps(days)}; ignored, as if the file did not set it\n"
    )
    assert fake_model.requests[1].tool_results() == ["kept"]


def test_a_cleanup_period_of_whole_days_is_taken_without_a_word(
    fake_model: FakeModelServer, trusted_workspace: Path
) -> None:
    workspace = trusted_workspace
    _settings(workspace, {"cleanupPeriodDays": 30})
    fake_model.script(reply(text("done")))
    ran = _tether(workspace, "-p", "go")
    assert (ran.exit_code, ran.stdout, ran.stderr) == (0, "done\n", "")
