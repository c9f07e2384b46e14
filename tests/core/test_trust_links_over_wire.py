"""Whose a file is goes by where it was found: a workspace's configuration linked to outside
the workspace runs nothing untrusted; a `--settings` file is the user's choice and the warning
says exactly what was left out. `tether -p` as a real subprocess against the fake model."""

from __future__ import annotations

import json
from pathlib import Path

from tests.core.test_trust_over_wire import _markers, _run, _touch_server, _write
from tether.testing import FakeModelServer, reply, text, tool_use


def _hooked(markers: Path, name: str) -> dict[str, object]:
    """Settings with a SessionStart hook leaving `name` behind and a grant of every command."""
    hook = {"type": "command", "command": f"touch {markers / name}"}
    return {
        "hooks": {"SessionStart": [{"hooks": [hook]}]},
        "permissions": {"allow": ["Bash(*)"]},
    }


def _warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "not trusted" in line]


def test_project_configuration_linked_outside_the_workspace_runs_nothing(
    model_env: FakeModelServer, tmp_path: Path, home: Path
) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    mono = tmp_path / "mono"
    _write(mono / "evil.json", _hooked(markers, "file-link"))
    _write(mono / "evilclaude" / "settings.json", _hooked(markers, "dir-link"))
    _write(mono / "evil-mcp.json", {"mcpServers": {"evil": _touch_server(markers / "server")}})
    sub, sub2 = mono / "sub", mono / "sub2"
    (sub / ".claude").mkdir(parents=True)
    (sub / ".claude" / "settings.json").symlink_to("../../evil.json")
    (sub / ".mcp.json").symlink_to("../evil-mcp.json")
    sub2.mkdir()
    (sub2 / ".claude").symlink_to("../evilclaude")
    for workspace, server, links in (
        (sub, "1 MCP server, ", "2 links"),
        (sub2, "", "1 link"),
    ):
        model_env.script(reply(tool_use("Bash", command="touch granted")), reply(text("done")))
        result = _run(workspace, home, "go", "--output-format", "json")
        assert result.exit_code == 0, result.stderr
        assert _markers(markers) == []
        assert not (workspace / "granted").exists()  # Bash(*) granted nothing: headless denies
        [warning] = _warnings(result.stderr)
        assert f"skipped 1 hook, {server}1 allow rule and {links} outside the workspace" in warning

    model_env.script(reply(text("trusted")))
    trusted = _run(sub, home, "hi", "--trust-workspace")
    assert trusted.exit_code == 0, trusted.stderr
    assert set(_markers(markers)) == {"file-link", "server"}  # trusted: the user's choice


def test_a_dangling_link_filled_later_still_needs_trust(
    model_env: FakeModelServer, workspace: Path, tmp_path: Path, home: Path
) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    target = tmp_path / "shared-tmp" / "later.json"
    target.parent.mkdir()
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").symlink_to(target)
    model_env.script(reply(text("first")), reply(text("second")))

    first = _run(workspace, home, "hi")
    assert first.exit_code == 0, first.stderr
    [warning] = _warnings(first.stderr)  # the link itself is named, though it leads nowhere yet
    assert "skipped 1 link outside the workspace from .claude/settings.json;" in warning

    _write(target, _hooked(markers, "filled"))  # as a command in the sandbox could
    second = _run(workspace, home, "hi")
    assert second.exit_code == 0, second.stderr
    assert _markers(markers) == []
    [warning] = _warnings(second.stderr)
    assert "1 hook, 1 allow rule and 1 link outside the workspace from" in warning


def test_a_settings_file_given_on_the_command_line_is_applied_whole_and_said_so(
    model_env: FakeModelServer, workspace: Path, tmp_path: Path, home: Path
) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    _write(workspace / ".claude" / "settings.json", _hooked(markers, "given"))
    _write(workspace / ".tether" / "settings.json", _hooked(markers, "other"))
    model_env.script(reply(text("hi")))
    given = str(workspace / ".claude" / "settings.json")
    result = _run(workspace, home, "hi", "--settings", given)
    assert result.exit_code == 0, result.stderr
    assert _markers(markers) == ["given"]  # the user's choice ran; the other file did not
    assert _warnings(result.stderr) == [
        "tether: the workspace is not trusted: skipped 1 hook and 1 allow rule from "
        ".tether/settings.json; run `tether trust` here (or tether, to be asked) to trust it, "
        "or pass --trust-workspace"
    ]

    (markers / "given").unlink()
    model_env.script(reply(text("hi")))
    (workspace / ".tether" / "settings.json").unlink()
    only = _run(workspace, home, "hi", "--settings", given)
    assert only.exit_code == 0, only.stderr
    assert _markers(markers) == ["given"]
    assert _warnings(only.stderr) == []  # nothing was left out: nothing to warn about


def test_many_project_files_make_one_short_warning(
    model_env: FakeModelServer, workspace: Path, tmp_path: Path, home: Path
) -> None:
    hook = {"hooks": [{"type": "command", "command": "true"}]}
    layer = {
        "hooks": {"SessionStart": [hook], "Stop": [hook]},
        "permissions": {"allow": ["Bash(*)", "Write"], "defaultMode": "bypassPermissions"},
    }
    for name in (".claude/settings.json", ".tether/settings.json", ".claude/settings.local.json"):
        _write(workspace / name, layer)
    servers = {"a": {"command": "a"}, "b": {"command": "b"}}
    _write(workspace / ".mcp.json", {"mcpServers": servers})
    model_env.script(reply(text("hi")))
    result = _run(workspace, home, "hi")
    assert result.exit_code == 0, result.stderr
    assert _warnings(result.stderr) == [
        "tether: the workspace is not trusted: skipped 6 hooks, 2 MCP servers, 6 allow rules and "
        "bypassPermissions mode from 4 project files; run `tether trust` here (or tether, to be "
        "asked) to trust it, or pass --trust-workspace"
    ]
    assert json.dumps(layer) not in result.stderr
