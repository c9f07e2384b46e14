"""The files tether writes into a project for this machine only stay out of git."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def git(workspace: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=workspace, capture_output=True, text=True)
    return done.stdout


def untracked(workspace: Path) -> list[str]:
    return git(workspace, "status", "--porcelain", "--untracked-files=all").splitlines()


def test_the_memory_file_a_compaction_writes_is_not_for_git(
    fake_model: FakeModelServer, tether: Run, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(workspace, "init", "-q")
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", "10000")
    rounds = [reply(tool_use("Bash", command=f"echo round {i}")) for i in range(4)]
    heavy = {"input_tokens": 9000, "output_tokens": 20}
    fake_model.script(
        *rounds,
        reply(tool_use("Bash", command="echo last"), usage=heavy),
        reply(text("SUMMARY: echoed five rounds.")),
        reply(text("done")),
    )
    result = tether("-p", "echo five rounds")
    assert result.exit_code == 0, result.stderr
    assert "SUMMARY" in (workspace / ".tether" / "memory.md").read_text()
    (workspace / ".tether" / "settings.local.json").write_text("{}")
    (workspace / ".tether" / "notes.local.md").write_text("mine\n")
    assert untracked(workspace) == []  # the ignore file tether made ignores itself too


def test_an_ignore_file_tether_made_before_learns_to_ignore_itself(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    git(workspace, "init", "-q")
    (workspace / ".tether").mkdir()
    old = "# Written by tether: this machine's files, not the repository's.\n*.local*\n"
    (workspace / ".tether" / ".gitignore").write_text(old)
    (workspace / ".tether" / "settings.local.json").write_text("{}")
    fake_model.script(reply(text("hi")))
    assert tether("-p", "hello").exit_code == 0
    assert (workspace / ".tether" / ".gitignore").read_text() == old + "/.gitignore\n"
    assert untracked(workspace) == []


def test_a_local_settings_file_is_ignored_and_the_users_ignore_file_kept(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    git(workspace, "init", "-q")
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / ".gitignore").write_text("scratch/")
    (workspace / ".tether" / "settings.local.json").write_text("{}")
    (workspace / ".tether" / "permissions.yaml").write_text("always_deny: []\n")
    fake_model.script(reply(text("hi")))
    assert tether("-p", "hello").exit_code == 0
    assert (workspace / ".tether" / ".gitignore").read_text() == "scratch/\n*.local*\n"
    assert untracked(workspace) == ["?? .tether/.gitignore", "?? .tether/permissions.yaml"]


def test_a_local_mcp_server_leaves_git_status_clean(workspace: Path, home: Path) -> None:
    git(workspace, "init", "-q")
    add = [sys.executable, "-m", "tether", "mcp", "add", "clock", "--", "python", "-m", "clock"]
    env = {**os.environ, "HOME": str(home)}
    subprocess.run(add, cwd=workspace, env=env, check=True, capture_output=True)
    assert any((workspace / ".tether").glob("mcp.local*"))
    assert git(workspace, "status", "--porcelain", "--untracked-files=all") == ""
