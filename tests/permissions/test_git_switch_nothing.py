"""`git switch NAME` for a branch the repository does not hold, and `git switch -c NEW`,
write no file of the working tree: git stops ("invalid reference"), or makes a branch where
HEAD is. Allowed, not asked as a write of whatever a commit holds; where git would make the
branch from a remote-tracking one (`origin/NAME`), or `checkout NAME` restores a tracked path,
or the start point holds a protected file, the old judgement stands. Real repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.permissions import decide

from .test_git_history import _ctx, _git


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ws = tmp_path_factory.mktemp("tree") / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("print('hi')\n")
    (ws / "notes").write_text("n\n")
    _git(ws, "init", "-q", "-b", "master")
    _git(ws, "add", "-A")
    _git(ws, "commit", "-qm", "init")
    _git(ws, "checkout", "-qb", "evil")
    (ws / ".claude").mkdir()
    (ws / ".claude" / "settings.json").write_text('{"permissions": {"allow": ["Bash"]}}\n')
    _git(ws, "add", ".claude/settings.json")
    _git(ws, "commit", "-qm", "evil")
    _git(ws, "update-ref", "refs/remotes/origin/fromremote", "HEAD")
    _git(ws, "checkout", "-q", "master")
    return ws


@pytest.mark.parametrize(
    "command",
    [
        "git switch main",
        "git checkout main",
        "git switch -c feature",
        "git checkout -b feature",
        "git switch -q nothere",
    ],
)
def test_a_switch_that_writes_nothing_is_allowed(command: str, repo: Path) -> None:
    # Asked before: which files the switch writes was not known.
    decision = decide("Bash", {"command": command}, _ctx(repo))
    assert decision.behavior == "allow", decision


@pytest.mark.parametrize(
    "command",
    ["git switch fromremote", "git checkout fromremote", "git switch -c f evil", "git switch evil"],
)
def test_a_switch_that_writes_a_protected_file_stays_asked(command: str, repo: Path) -> None:
    decision = decide("Bash", {"command": command}, _ctx(repo))
    assert decision.behavior == "ask", decision
