"""A `.tether/.gitignore` of the person's own is left as it is, and tether's runtime files
still stay out of `git status`. Failed before: `.tether/tasks.db` and `.tether/teams/` showed."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tether.testing import FakeModelServer
from tether.testing.teammates import mate_answers, polite

from .mates import new_team
from .workers import tether


def test_runtime_files_stay_out_of_git_status_beside_a_persons_own_gitignore(
    repo: Path, model_env: FakeModelServer
) -> None:
    own = "settings.local.json\n"
    (repo / ".tether").mkdir()
    (repo / ".tether" / ".gitignore").write_text(own)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "own"], cwd=repo, check=True)
    tether(repo, "tasks", "add", "one")
    tether(repo, "tasks", "add", "two")
    model_env.responder = mate_answers(polite)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice")
    tether(repo, "team", "down", team)
    assert (repo / ".tether" / "tasks.db").exists()
    assert (repo / ".tether" / "teams").is_dir()
    shown = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert shown == ""
    assert (repo / ".tether" / ".gitignore").read_text() == own
