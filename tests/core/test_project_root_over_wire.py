"""tether started in a subdirectory of a repository works in the repository's project, as one
started at its root would: the root's settings (model, deny rules, hooks), CLAUDE.local.md and
memory file apply, its sessions and trust answer are the same; Bash starts where tether was
started; the settings of the directories in between apply too. Over the wire."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult, run_cli


def _git_init(directory: Path) -> None:
    subprocess.run(["git", "init", "-q", str(directory)], check=True)


def _write(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)


def _run(start: Path, *argv: str) -> CliResult:
    return run_cli(["--cwd", str(start), "--permission-mode", "bypassPermissions", *argv])


def _subcommand(*argv: str) -> str:
    """`tether SUBCOMMAND ...` as a process; its standard output."""
    done = subprocess.run(
        [sys.executable, "-m", "tether", *argv], capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def repository(trusted_workspace: Path, tmp_path: Path) -> Path:
    """The workspace as a repository with settings, instructions and memory at its root, and
    settings of its own in `src`; the user trusts it."""
    root = trusted_workspace
    _git_init(root)
    marker = tmp_path / "hook-ran"
    hook = {"type": "command", "command": f"{sys.executable} -c \"open({str(marker)!r}, 'a')\""}
    _write(
        root / ".claude" / "settings.json",
        json.dumps(
            {
                "model": "claude-haiku-4-5",
                "permissions": {"deny": ["Bash(rm *)"]},
                "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]},
            }
        ),
    )
    _write(root / "src" / ".claude" / "settings.json", '{"permissions": {"deny": ["Bash(mv *)"]}}')
    _write(root / "CLAUDE.md", "Root instructions.\n")
    _write(root / "CLAUDE.local.md", "Local root instructions.\n")
    _write(root / ".tether" / "memory.md", "Remembered from before.\n")
    (root / "src" / "app").mkdir(parents=True)
    return root


def test_a_subdirectory_start_works_in_the_repositorys_project(
    fake_model: FakeModelServer, repository: Path, tmp_path: Path
) -> None:
    start = repository / "src" / "app"
    fake_model.script(
        reply(
            tool_use("Bash", command="pwd"),
            tool_use("Bash", command="rm -rf nothing"),
            tool_use("Bash", command="mv a b"),
        ),
        reply(text("done")),
    )
    result = _run(start, "-p", "work", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    first, follow_up = fake_model.requests
    assert first.body["model"] == "claude-haiku-4-5"
    system = first.system()
    for expected in (
        "Root instructions.",
        "Local root instructions.",
        "Remembered from before.",
        f"- Workspace root: {repository}",
        f"- Working directory (where Bash starts): {start}",
    ):
        assert expected in system
    pwd, rm, mv = follow_up.tool_results()
    assert pwd == str(start)
    assert follow_up.tool_result_errors() == [False, True, True]
    assert "Bash(rm *)" in rm
    assert "Bash(mv *)" in mv  # the settings of the directory in between
    assert (tmp_path / "hook-ran").exists()

    # The same project from the root: the session continues.
    session_id = result.json()["session_id"]
    fake_model.script(reply(text("again")))
    again = _run(repository, "-c", "-p", "more", "--output-format", "json")
    assert again.exit_code == 0, again.stderr
    assert again.json()["session_id"] == session_id
    listed = _subcommand("sessions", "list", "--json", "--cwd", str(start))
    assert [s["session_id"] for s in json.loads(listed)] == [session_id]


def test_an_untrusted_repository_is_asked_about_at_its_root(
    fake_model: FakeModelServer, model_env: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    _git_init(workspace)
    marker = tmp_path / "hook-ran"
    hook = {"type": "command", "command": f"touch {marker}"}
    _write(
        workspace / ".claude" / "settings.json",
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}),
    )
    start = workspace / "deep" / "down"
    start.mkdir(parents=True)
    fake_model.script(reply(tool_use("Bash", command="true")), reply(text("done")))
    result = _run(start, "-p", "work")
    assert result.exit_code == 0, result.stderr
    assert not marker.exists()
    assert "tether: the workspace is not trusted: skipped 1 hook from .claude/settings.json" in (
        result.stderr
    )
    _subcommand("trust", "--cwd", str(start))
    fake_model.script(reply(tool_use("Bash", command="true")), reply(text("done")))
    assert _run(workspace, "-p", "work").exit_code == 0  # the root is trusted now
    assert marker.exists()


def test_a_repository_at_the_home_directory_is_no_project_of_its_folders(
    fake_model: FakeModelServer,
    model_env: FakeModelServer,
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", str(home))
    _git_init(home)  # dotfiles kept in git
    _write(home / ".tether" / "settings.json", '{"model": "claude-opus-4-5"}')
    start = home / "projects" / "thing"
    start.mkdir(parents=True)
    fake_model.script(reply(tool_use("Bash", command="pwd")), reply(text("done")))
    result = _run(start, "-p", "work")
    assert result.exit_code == 0, result.stderr
    first, follow_up = fake_model.requests
    assert first.body["model"] != "claude-opus-4-5"
    assert f"- Workspace root: {start}" in first.system()
    assert follow_up.tool_results() == [str(start)]
    assert os.environ["HOME"] == str(home)
