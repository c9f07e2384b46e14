"""`team up` and `team status` count a stopped teammate's unread messages alike (`up` counts
them before any process of the member could read one: measured before, `up` said one fewer
than `status` had, the message whose turn it runs again); and what a team run leaves under
`.tether/` is out of git's view, while a person's own file there still shows. Measured
before: `git status` showed `?? .tether/` after a team run."""

from __future__ import annotations

import json
from pathlib import Path

from tether.testing import FakeModelServer
from tether.testing.teammates import mate_answers, polite

from .conftest import git
from .mates import member, new_team, status
from .workers import tether


def test_up_counts_unread_as_status_does_and_leaves_git_status_clean(
    repo: Path, model_env: FakeModelServer
) -> None:
    model_env.responder = mate_answers(polite)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice")
    tether(repo, "team", "down", team)
    tether(repo, "team", "send", team, "alice", "one")
    tether(repo, "team", "send", team, "alice", "two")
    assert member(status(repo, team), "alice")["unread"] == 2
    try:
        out = tether(repo, "team", "up", team)
        assert "alice: started (pid " in out
        assert out.rstrip().endswith("), 2 unread message(s)")
    finally:
        tether(repo, "team", "down", team)
    assert (repo / ".tether" / "teams" / team / "alice.log").is_file()
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""
    (repo / ".tether" / "settings.json").write_text(json.dumps({"permissions": {}}))
    shown = git(repo, "status", "--porcelain", "--untracked-files=all")
    assert shown.splitlines() == ["?? .tether/settings.json"]


def test_a_gitignore_of_the_users_is_left_as_it_is(repo: Path, model_env: FakeModelServer) -> None:
    (repo / ".tether").mkdir()
    (repo / ".tether" / ".gitignore").write_text("mine\n")
    tether(repo, "tasks", "add", "a task")
    assert (repo / ".tether" / "tasks.db").is_file()
    assert (repo / ".tether" / ".gitignore").read_text() == "mine\n"
