"""Real git repositories in the test's tmp dir, with git's global and system configuration
kept out (a test must not read the machine's identity or hooks)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .mates import store

__all__ = ["store"]  # the SQLite-or-Redis store flag of the teammate tests


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.strip()


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture(autouse=True)
def own_git_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "git-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("GIT_COMMITTER_NAME", raising=False)
    monkeypatch.delenv("GIT_COMMITTER_EMAIL", raising=False)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository on `main` with one commit of a.txt and b.txt, and an identity of its own."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "--quiet", "--initial-branch=main")
    git(path, "config", "user.name", "Repo User")
    git(path, "config", "user.email", "user@example.com")
    write(path / "a.txt", "a\n")
    write(path / "b.txt", "b\n")
    git(path, "add", ".")
    git(path, "commit", "--quiet", "-m", "init")
    return path
