"""Task branches and worktrees listed, then read or acted on one by one, while other workers'
tasks end: each ending task removes its worktree and deletes its branch when it holds no
unmerged work, at any moment.

Seen in every run of four workers on eight tasks that changed nothing: a task's end listed
the task branches, another task's empty branch was deleted before `git rev-list` read it, and
the task failed ("could not run: ... unknown revision") after it had run, its worktree left
behind. `tether worktrees list` failed the same way during a run.

The tests put the deletion exactly there: a `git` ahead on PATH that, once the real git has
listed what it was asked to (the task branches, the worktrees), does what another worker's
task end or pre-flight does, before the listing process can act on what it read.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tether.teams.lifecycle import close_worktree, open_worktree
from tether.teams.review import branch_states, clean_worktrees
from tether.teams.stale import clear_stale
from tether.testing.cli_runner import run_cli_process

from .conftest import git, write

GIT_AHEAD = """\
import json, os, subprocess, sys

real, marker = os.environ["REAL_GIT"], os.environ["RACE_MARKER"]
after, then = json.loads(os.environ["RACE_AFTER"]), json.loads(os.environ["RACE_THEN"])
done = subprocess.run([real, *sys.argv[1:]])
if all(word in sys.argv for word in after) and not os.path.exists(marker):
    open(marker, "w").close()  # once: another worker's step, between this listing and its use
    for args in then:
        subprocess.run([real, *args], check=True, capture_output=True)
sys.exit(done.returncode)
"""

BRANCH_LISTING = ["for-each-ref", "refs/heads/tether/"]


async def test_a_tasks_end_survives_another_tasks_branch_deleted_after_the_listing(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = await open_worktree(repo, "1")  # will change nothing: its end deletes its branch
    second = await open_worktree(repo, "2")
    write(second.path / "a.txt", "changed by task 2\n")
    task_1_ends = [
        ["-C", str(repo), "worktree", "remove", "--force", "--force", str(first.path)],
        ["-C", str(repo), "branch", "-D", "tether/1"],
    ]
    _git_ahead(tmp_path, monkeypatch, BRANCH_LISTING, task_1_ends)

    closed = await close_worktree(second, outcome="completed", message="task 2")

    assert (tmp_path / "raced").exists()  # the deletion happened where it was meant to
    assert closed.commit is not None
    assert closed.overlaps == ()
    assert not second.path.exists()
    assert git(repo, "show", "tether/2:a.txt") == "changed by task 2"


def test_worktrees_list_survives_a_branch_deleted_after_the_listing(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(repo, "branch", "tether/1")  # empty: its task's end deletes it
    git(repo, "switch", "--quiet", "-c", "tether/2")
    write(repo / "b.txt", "task 2\n")
    git(repo, "commit", "--quiet", "-am", "task 2")
    git(repo, "switch", "--quiet", "main")
    _git_ahead(
        tmp_path, monkeypatch, BRANCH_LISTING, [["-C", str(repo), "branch", "-D", "tether/1"]]
    )

    listed = run_cli_process(["worktrees", "list"], cwd=repo)

    assert (tmp_path / "raced").exists()
    assert (listed.exit_code, listed.stderr) == (0, "")
    assert (
        "task 2  tether/2  1 unmerged commit(s), 1 file(s) changed; no worktree\n" in listed.stdout
    )
    states = {s.branch: s.unmerged for s in branch_states(repo)}
    assert states == {"tether/2": 1}


def test_two_cleans_at_once_each_finish(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for branch in ("tether/1", "tether/3"):
        git(repo, "branch", branch)
    other_clean = [["-C", str(repo), "branch", "-D", "tether/1", "tether/3"]]
    _git_ahead(tmp_path, monkeypatch, BRANCH_LISTING, other_clean)

    cleaned = clean_worktrees(repo)

    assert (tmp_path / "raced").exists()
    assert cleaned.removed == ("tether/1", "tether/3")
    assert git(repo, "branch", "--list", "tether/*") == ""


def test_a_stale_worktree_cleared_by_another_pre_flight_meanwhile_is_left_to_it(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    path = repo / ".tether/worktrees/6"
    reason = f"tether task 6: pid {dead} on {os.uname().nodename}"
    git(
        repo,
        "worktree",
        "add",
        "--quiet",
        "--lock",
        "--reason",
        reason,
        "-b",
        "tether/6",
        str(path),
    )
    other_pre_flight = [["-C", str(repo), "worktree", "remove", "--force", "--force", str(path)]]
    _git_ahead(tmp_path, monkeypatch, ["worktree", "list"], other_pre_flight)

    said = clear_stale(repo)

    assert (tmp_path / "raced").exists()
    assert said == []  # the other pre-flight cleared it, and said so: nothing done here
    assert not path.exists()


def _git_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, after: list[str], then: list[list[str]]
) -> None:
    real = shutil.which("git")
    assert real is not None
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "git"
    shim.write_text(f"#!{sys.executable}\n{GIT_AHEAD}")
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("REAL_GIT", real)
    monkeypatch.setenv("RACE_MARKER", str(tmp_path / "raced"))
    monkeypatch.setenv("RACE_AFTER", json.dumps(after))
    monkeypatch.setenv("RACE_THEN", json.dumps(then))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
