"""The gits tether runs itself (a task's worktree: status, add, commit) run nothing a
repository's config names: a nested repository a background command made (with a gitlink in
the index) can have a `core.fsmonitor` before the sandbox's sweep disables it. A directory
gone when git is run there is said as gone."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tether.teams.git import GitError, run_git

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]


def _git(cwd: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=cwd, capture_output=True, check=True)


def test_a_nested_repositorys_programs_do_not_run_at_tethers_own_git(tmp_path: Path) -> None:
    repo = tmp_path / "work"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.txt").write_text("a\n")
    _git(repo, "add", "a.txt")
    _git(repo, "commit", "-q", "-m", "one")
    ran = tmp_path / "ran"
    nested = repo / "third_party" / "lib"
    nested.mkdir(parents=True)
    _git(nested, "init", "-q")
    _git(nested, "commit", "-q", "--allow-empty", "-m", "n")
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=nested, capture_output=True, text=True, check=True
    ).stdout.strip()
    _git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},third_party/lib")
    hook = f"echo fsmonitor >> {ran}; false"
    _git(nested, "config", "core.fsmonitor", hook)
    (nested / "b.txt").write_text("dirty\n")
    for args in (
        ("status", "--porcelain", "--untracked-files=all"),
        ("add", "--all"),
        ("diff", "--cached", "--stat"),
        ("commit", "--no-verify", "--quiet", "-m", "two"),
    ):
        run_git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", *args)
    assert not ran.exists()


def test_a_directory_gone_is_said_as_gone_not_as_git_missing(tmp_path: Path) -> None:
    # A worktree another worker removed meanwhile: the child process cannot enter it, which
    # Python reports as the same FileNotFoundError as a missing program.
    gone = tmp_path / "worktree"
    with pytest.raises(GitError) as raised:
        run_git(gone, "status")
    assert str(raised.value) == (
        f"git status (in {gone}) failed: the directory does not exist (removed meanwhile?)"
    )
