"""Each run's own copy of a case's starting repository: a git worktree of a repository's
HEAD, a copy of any other directory, or the inline files written out."""

from __future__ import annotations

import shutil
from pathlib import Path

from tether.evals.suite import Case
from tether.teams.git import GitError, run_git


class CopyError(Exception):
    """The case's starting point could not be copied (said with the case and the path)."""


def make_copy(case: Case, suite_dir: Path, dest: Path) -> None:
    """`dest` (which must not exist yet) made the case's starting point."""
    if case.files is not None:
        dest.mkdir(parents=True)
        for name, content in case.files.items():
            path = dest / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
        return
    assert case.repo is not None
    source = (suite_dir / case.repo).resolve()
    if not source.is_dir():
        raise CopyError(f"case {case.id!r}: repo {case.repo!r} is not a directory ({source})")
    if _is_git_top(source):
        try:
            run_git(source, "worktree", "add", "--detach", str(dest), "HEAD")
        except GitError as e:
            raise CopyError(f"case {case.id!r}: {e}") from e
        return
    try:
        shutil.copytree(source, dest, symlinks=True)
    except OSError as e:
        raise CopyError(f"case {case.id!r}: cannot copy {source}: {e}") from e


def remove_copy(case: Case, suite_dir: Path, dest: Path) -> None:
    """The copy gone (a worktree unregistered from its repository too)."""
    if case.repo is not None:
        source = (suite_dir / case.repo).resolve()
        if _is_git_top(source) and dest.exists():
            run_git(source, "worktree", "remove", "--force", str(dest), check=False)
            run_git(source, "worktree", "prune", check=False)
    shutil.rmtree(dest, ignore_errors=True)


def _is_git_top(path: Path) -> bool:
    done = run_git(path, "rev-parse", "--show-toplevel", check=False)
    return done.returncode == 0 and Path(done.stdout.strip()).resolve() == path
