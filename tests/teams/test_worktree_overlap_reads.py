"""A task's end compares its branch with the other task branches, reading the uncommitted files
of their worktrees, while those tasks' workers may be committing into them and removing them.

Seen once under load with two workers: task 2's end ran `git status` in task 1's worktree as
task 1's worker removed it; git found its working directory gone, and task 2 failed after its
work was done. The read now happens inside the other task's fenced section, where its run
commits and removes. The test puts the other worker's removal at the moment the read runs,
whenever the section allows it: a `git` ahead on PATH that, when asked for the status of task
1's worktree, removes that worktree first if task 1's section is free (as task 1's worker
may), then runs git.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

from tether.teams.lifecycle import close_worktree, open_worktree
from tether.teams.review import Overlap, task_overlaps
from tether.teams.takeover import lock_path

from .conftest import write

GIT_AHEAD = """\
import fcntl, os, subprocess, sys

real, worktree = os.environ["REAL_GIT"], os.environ["RACED_WORKTREE"]
lock = os.environ["RACED_LOCK"]
if "status" in sys.argv and os.getcwd() == worktree and os.path.exists(lock):
    fd = os.open(lock, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        pass  # the section is held: nobody removes the worktree now
    else:  # free: task 1's worker removes its worktree now, as it may
        main = os.path.dirname(os.path.dirname(os.path.dirname(worktree)))
        subprocess.run([real, "-C", main, "worktree", "remove", "--force", "--force", worktree])
    os.close(fd)
os.execv(real, [real, *sys.argv[1:]])
"""


async def test_a_tasks_end_reads_another_worktree_whole_while_its_worker_removes_it(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = await open_worktree(repo, "1")
    second = await open_worktree(repo, "2")
    write(first.path / "a.txt", "changed by task 1\n")  # not committed yet
    write(second.path / "a.txt", "changed by task 2\n")
    lock_path(repo, "1").parent.mkdir(parents=True, exist_ok=True)
    lock_path(repo, "1").touch()  # task 1's section, as its run has it
    _git_ahead(tmp_path / "bin", monkeypatch, first.path, lock_path(repo, "1"))

    overlaps = task_overlaps(second)

    assert overlaps == [Overlap("a.txt", ("tether/1", "tether/2"))]
    monkeypatch.undo()
    closed = await close_worktree(first, outcome="completed", message="task 1")
    assert closed.commit is not None
    assert not first.path.exists()


def _git_ahead(bin_dir: Path, monkeypatch: pytest.MonkeyPatch, worktree: Path, lock: Path) -> None:
    real = shutil.which("git")
    assert real is not None
    bin_dir.mkdir()
    shim = bin_dir / "git"
    shim.write_text(f"#!{sys.executable}\n{GIT_AHEAD}")
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("REAL_GIT", real)
    monkeypatch.setenv("RACED_WORKTREE", str(worktree))
    monkeypatch.setenv("RACED_LOCK", str(lock))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
