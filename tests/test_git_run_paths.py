"""Where git's configuration makes it run programs from: read with git, kept while the files
it came from are unchanged."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from tether.git_run_paths import GitRunPaths, git_run_paths


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
