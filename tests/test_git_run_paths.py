"""Where git's configuration makes it run programs from: read with git, kept while the files
it came from are unchanged."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tether.git_run_paths import GitRunPaths, git_run_paths
from tether.sandbox.protected import RACY_NS


def git(ws: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True)


def test_hooks_and_includes_as_git_reads_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    (ws / "shared.cfg").write_text('[core]\n\thooksPath = "team hooks"\n')
    git(ws, "config", "include.path", "../shared.cfg")
    git(ws, "config", "--add", "include.path", "../missing.cfg")
    git(ws, "config", "includeIf.gitdir:/nowhere/.path", "~/other.cfg")
    found = git_run_paths(ws / "sub" / "dir", home=home)  # below the work tree's top
    assert found.hooks == (ws / "team hooks",)
    assert {ws / "shared.cfg", ws / "missing.cfg", home / "other.cfg"} <= set(found.config_files)
    assert ws / ".git" / "config" in found.config_files


def test_a_changed_config_is_read_again(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    git(ws, "config", "core.hooksPath", "one")
    # Past the racy window, so the answer is kept.
    old = time.time() - 5
    os.utime(ws / ".git" / "config", (old, old))
    assert git_run_paths(ws, home=tmp_path).hooks == (ws / "one",)
    git(ws, "config", "core.hooksPath", "~/two")
    assert git_run_paths(ws, home=tmp_path).hooks == (tmp_path / "two",)


def test_no_repository_runs_nothing(tmp_path: Path) -> None:
    assert git_run_paths(tmp_path, home=tmp_path) == GitRunPaths()


def test_entries_made_in_the_git_directory_do_not_cost_a_reread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sandbox's placeholders (an empty `config.worktree`, a `hooks` directory) come and
    go between commands; git reads the same with them, so git is not run again. A
    `commondir` made there, which would move the config git reads, is read again."""
    ws = tmp_path / "ws"
    ws.mkdir()
    git(ws, "init", "-q")
    git(ws, "config", "core.hooksPath", "one")
    time.sleep(RACY_NS / 1e9 + 0.05)  # the change times age past the racy window
    assert git_run_paths(ws, home=tmp_path).hooks == (ws / "one",)
    runs: list[object] = []
    real_run = subprocess.run

    def counting(*args: Any, **kwargs: Any) -> Any:
        runs.append(args)
        return real_run(*args, **kwargs)

    monkeypatch.setattr(subprocess, "run", counting)
    (ws / ".git" / "config.worktree").touch()
    (ws / ".git" / "commondir").write_text(".\n")
    (ws / ".git" / "made").mkdir()
    assert git_run_paths(ws, home=tmp_path).hooks == (ws / "one",)
    (ws / ".git" / "config.worktree").unlink()
    (ws / ".git" / "commondir").unlink()
    assert git_run_paths(ws, home=tmp_path).hooks == (ws / "one",)
    assert runs == []
    other = tmp_path / "other"
    other.mkdir()
    (other / "config").write_text("[core]\n\thooksPath = two\n")
    (ws / ".git" / "commondir").write_text(f"{other}\n")
    git_run_paths(ws, home=tmp_path)
    assert len(runs) == 1
