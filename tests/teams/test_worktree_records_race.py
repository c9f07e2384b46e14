"""Two workers making their tasks' worktrees at once: git makes `.git/worktrees/<id>` and only
then fills its `commondir`, and any git listing the worktrees in that moment (`worktree add`,
`worktree list`, `branch -D`, ...) stopped with `failed to read .git/worktrees/<id>/commondir:
Success`. Seen once in seven runs of a two-worker test under load.

The tests put another `git worktree add` in that moment whenever it can be there: a `git` ahead
on PATH that, before running the real git, makes a half-made record (its `gitdir` written, its
`commondir` still empty), as a concurrent `worktree add` does; then removes it. A concurrent
tether process can be in that moment only while the repository's worktree lock is free, so the
first test's `git` makes the record only then; the second's makes it once whatever the lock (a
git outside tether, which takes no lock), and tether waits it out.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from tether.teams.lifecycle import close_worktree, open_worktree
from tether.teams.records import worktree_records
from tether.teams.review import clean_worktrees
from tether.teams.worktree_lock import lock_file
from tether.teams.worktrees import delete_if_empty

from .conftest import git, write

GIT_AHEAD = """\
import fcntl, os, shutil, subprocess, sys

real, lock, mode = os.environ["REAL_GIT"], os.environ["RACE_LOCK"], os.environ["RACE_MODE"]
fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    free = True
except BlockingIOError:
    free = False  # a tether git holds it: no other tether git is making a worktree now
if mode == "outside":  # a git of the user's, at the first that lists worktrees: no lock
    free = "branch" in sys.argv and not os.path.exists(lock + ".done")
    if free:
        open(lock + ".done", "w").close()
if not free:
    os.execv(real, [real, *sys.argv[1:]])
common = os.path.dirname(lock)
half = os.path.join(common, "worktrees", f"racing-{os.getpid()}")
os.makedirs(half)
with open(os.path.join(half, "gitdir"), "w") as f:
    f.write(os.path.join(os.path.dirname(common), "elsewhere", ".git") + "\\n")
open(os.path.join(half, "commondir"), "w").close()  # made, not yet written
done = subprocess.run([real, *sys.argv[1:]])
shutil.rmtree(half)  # its git went on and failed, or finished: not half-made any more
sys.exit(done.returncode)
"""


async def test_two_tasks_worktrees_made_and_removed_while_others_are_half_made(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _git_ahead(tmp_path / "bin", monkeypatch, lock_file(repo), "tether")

    first, second = await asyncio.gather(open_worktree(repo, "1"), open_worktree(repo, "2"))
    write(first.path / "a.txt", "changed by task 1\n")
    closed = await asyncio.gather(
        close_worktree(first, outcome="completed", message="task 1"),
        close_worktree(second, outcome="completed", message="task 2"),
    )
    git(repo, "branch", "--quiet", "tether/3")
    cleaned = clean_worktrees(repo)

    assert [c.commit is not None for c in closed] == [True, False]
    assert [c.branch_kept for c in closed] == [True, False]
    assert cleaned.removed == ("tether/3",)
    assert not first.path.exists()
    assert not second.path.exists()
    assert [r.path for r in worktree_records(repo)] == [repo]


def test_a_half_made_record_of_a_git_outside_tether_is_waited_out(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(repo, "branch", "--quiet", "tether/1")
    _git_ahead(tmp_path / "bin", monkeypatch, lock_file(repo), "outside")

    kept = delete_if_empty(repo, "tether/1")

    assert not kept
    assert git(repo, "branch", "--list", "tether/1") == ""


def _git_ahead(bin_dir: Path, monkeypatch: pytest.MonkeyPatch, lock: Path, mode: str) -> None:
    real = shutil.which("git")
    assert real is not None
    bin_dir.mkdir()
    shim = bin_dir / "git"
    shim.write_text(f"#!{sys.executable} -IS\n{GIT_AHEAD}")  # -S: starts sooner
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("REAL_GIT", real)
    monkeypatch.setenv("RACE_LOCK", str(lock))
    monkeypatch.setenv("RACE_MODE", mode)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
