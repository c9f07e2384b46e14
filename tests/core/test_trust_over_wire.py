"""A cloned repository runs nothing without consent: `tether -p` as a real subprocess, with
HOME and TETHER_HOME of the test's own, against the fake model. Markers written by hooks and
servers show what ran."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

from tether.config.trust import record_trust
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult, run_cli_process

EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse")


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)


def _marker_hooks(workspace: Path, markers: Path) -> None:
    """A repository whose hooks each leave a marker file behind."""
    hooks = {
        event: [{"hooks": [{"type": "command", "command": f"touch {markers / event}"}]}]
        for event in EVENTS
    }
    _write(workspace / ".claude" / "settings.json", {"hooks": hooks})


def _touch_server(marker: Path) -> dict[str, object]:
    """A stdio MCP server entry whose command leaves a marker (and then exits: it need not
    speak MCP for the marker to show that it was started)."""
    program = "import pathlib, sys; pathlib.Path(sys.argv[1]).touch()"
    return {"command": sys.executable, "args": ["-c", program, str(marker)]}


def _run(workspace: Path, home: Path, *argv: str, **env: str) -> CliResult:
    environment = {**os.environ, "HOME": str(home), "MCP_TIMEOUT": "20000", **env}
    environment.pop("TETHER_TRUST_WORKSPACE", None)
    environment.update(env)
    return run_cli_process(["--cwd", str(workspace), "-p", *argv], env=environment)


def _markers(markers: Path) -> list[str]:
    return sorted(p.name for p in markers.iterdir())


def _script_one_call(model: FakeModelServer) -> None:
    model.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))


def test_hooks_do_not_run_untrusted_and_one_warning_says_why(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    _marker_hooks(workspace, markers)
    _script_one_call(model_env)
    result = _run(workspace, home, "go", "--permission-mode", "bypassPermissions")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "done\n"
    assert _markers(markers) == []
    warnings = [line for line in result.stderr.splitlines() if "not trusted" in line]
    assert warnings == [
        "tether: the workspace is not trusted: skipped 3 hooks from .claude/settings.json; "
        "run `tether trust` here (or tether, to be asked) to trust it, or pass --trust-workspace"
    ]


def test_hooks_run_with_the_flag_the_variable_or_a_recorded_trust(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    _marker_hooks(workspace, markers)
    for _ in range(3):
        _script_one_call(model_env)
    bypass = ("--permission-mode", "bypassPermissions")

    flagged = _run(workspace, home, "go", "--trust-workspace", *bypass)
    assert flagged.exit_code == 0, flagged.stderr
    assert "not trusted" not in flagged.stderr
    assert _markers(markers) == sorted(EVENTS)

    for marker in markers.iterdir():
        marker.unlink()
    by_variable = _run(workspace, home, "go", *bypass, TETHER_TRUST_WORKSPACE="1")
    assert by_variable.exit_code == 0, by_variable.stderr
    assert _markers(markers) == sorted(EVENTS)

    for marker in markers.iterdir():
        marker.unlink()
    tether_home = Path(os.environ["TETHER_HOME"])
    assert record_trust(workspace, True, tether_home=tether_home, user_home=home)
    recorded = _run(workspace, home, "go", *bypass)
    assert recorded.exit_code == 0, recorded.stderr
    assert "not trusted" not in recorded.stderr
    assert _markers(markers) == sorted(EVENTS)


def test_claude_codes_accepted_trust_dialog_trusts_the_workspace_and_below(
    model_env: FakeModelServer, tmp_path: Path, home: Path
) -> None:
    repository = tmp_path / "repository"
    workspace = repository / "sub"
    workspace.mkdir(parents=True)
    markers = tmp_path / "markers"
    markers.mkdir()
    _marker_hooks(workspace, markers)
    _write(home / ".claude.json", {"projects": {str(repository): {"hasTrustDialogAccepted": True}}})
    _script_one_call(model_env)
    result = _run(workspace, home, "go", "--permission-mode", "bypassPermissions")
    assert result.exit_code == 0, result.stderr
    assert _markers(markers) == sorted(EVENTS)
    # Read only: tether never writes Claude Code's file.
    assert json.loads((home / ".claude.json").read_text()) == {
        "projects": {str(repository): {"hasTrustDialogAccepted": True}}
    }


def test_a_trusted_home_directory_does_not_trust_what_is_cloned_below_it(
    model_env: FakeModelServer, home: Path, tmp_path: Path
) -> None:
    workspace = home / "clones" / "repository"
    workspace.mkdir(parents=True)
    markers = tmp_path / "markers"
    markers.mkdir()
    _marker_hooks(workspace, markers)
    _write(home / ".claude.json", {"projects": {str(home): {"hasTrustDialogAccepted": True}}})
    _script_one_call(model_env)
    result = _run(workspace, home, "go", "--permission-mode", "bypassPermissions")
    assert result.exit_code == 0, result.stderr
    assert _markers(markers) == []
    assert "skipped 3 hooks from .claude/settings.json" in result.stderr


def test_repository_servers_start_only_in_a_trusted_workspace(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    _write(workspace / ".mcp.json", {"mcpServers": {"shared": _touch_server(markers / "json")}})
    seed = _touch_server(markers / "yaml")
    _write(
        workspace / "config" / "mcp_config.yaml",
        f"servers:\n  - name: seeded\n    command: {shlex.quote(str(seed['command']))}\n"
        f"    args: {json.dumps(seed['args'])}\n",
    )
    # Approvals in the repository's own settings file grant nothing until it is trusted.
    _write(workspace / ".claude" / "settings.json", {"enableAllProjectMcpServers": True})
    model_env.script(reply(text("untrusted")), reply(text("trusted")))

    untrusted = _run(workspace, home, "hi")
    assert untrusted.exit_code == 0, untrusted.stderr
    assert _markers(markers) == []
    assert (
        "tether: the workspace is not trusted: skipped 2 MCP servers from 2 project files; "
        "run `tether trust` here (or tether, to be asked) to trust it, or pass --trust-workspace"
    ) in untrusted.stderr.splitlines()

    trusted = _run(workspace, home, "hi", "--trust-workspace")
    assert trusted.exit_code == 0, trusted.stderr
    assert _markers(markers) == ["json", "yaml"]


def test_project_grants_are_ignored_untrusted_but_its_denials_hold(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    (workspace / "keep.txt").write_text("precious")
    _write(
        workspace / ".claude" / "settings.json",
        {
            "permissions": {
                "allow": ["Bash(touch *)"],
                "deny": ["Bash(rm *)"],
                "defaultMode": "bypassPermissions",
            }
        },
    )
    for _ in range(2):
        model_env.script(
            reply(tool_use("Bash", command="touch granted")),
            reply(tool_use("Bash", command="rm keep.txt")),
            reply(text("done")),
        )

    untrusted = _run(workspace, home, "go", "--output-format", "json")
    assert untrusted.exit_code == 0, untrusted.stderr
    assert not (workspace / "granted").exists()  # no allow rule, no bypass: headless denies
    assert (workspace / "keep.txt").exists()
    denied = [d["tool_input"]["command"] for d in untrusted.json()["permission_denials"]]
    assert denied == ["touch granted", "rm keep.txt"]
    assert (
        "skipped 1 allow rule and bypassPermissions mode from .claude/settings.json;"
        in untrusted.stderr
    )

    trusted = _run(workspace, home, "go", "--output-format", "json", "--trust-workspace")
    assert trusted.exit_code == 0, trusted.stderr
    assert (workspace / "granted").exists()
    assert (workspace / "keep.txt").exists()
    denied = [d["tool_input"]["command"] for d in trusted.json()["permission_denials"]]
    assert denied == ["rm keep.txt"]


def test_a_settings_env_cannot_trust_its_own_workspace(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    _marker_hooks(workspace, markers)
    settings = workspace / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    _write(settings, {**data, "env": {"TETHER_TRUST_WORKSPACE": "1"}})
    _script_one_call(model_env)
    result = _run(workspace, home, "go", "--permission-mode", "bypassPermissions")
    assert result.exit_code == 0, result.stderr
    assert _markers(markers) == []
    assert "1 environment variable from .claude/settings.json" in result.stderr
