"""Running git for the worktree lifecycle: every call names its directory (`cwd`), never the
process's, so parallel tasks in one process cannot send each other's commands to the wrong
tree; and the variables that would point git at another repository are dropped."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from tether.teams.worktree_lock import RecordsLockError, reads_records, run_on_records

TIMEOUT_S = 120.0
"""Long enough for a checkout of a large tree; a hung git (a lock held by a dead process
waits, it does not hang) still ends."""

_LOCATION_VARIABLES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE")
"""Set when tether runs inside a git hook, say: they would override `cwd`."""

HARNESS_OPTIONS = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "diff.ignoreSubmodules=dirty",
    "-c",
    "submodule.recurse=false",
    "-c",
    "safe.bareRepository=explicit",
    "-c",
    "log.showSignature=false",
    "-c",
    "diff.external=",
    "--no-pager",
)
"""Given to every git tether runs itself: nothing a repository's config names runs. Sandboxed
commands can make a repository under any name in a worktree (`git init vendor`, a gitlink to
it in the index) and give it a `core.fsmonitor`; the sandbox disables it when the command ends
(`tether.sandbox.git_sweep`), but a background command can still be writing it when tether's
own `git status` or `git add` runs. Command-line settings outrank every config file whenever
they are read, and reach the gits git starts (a submodule's status) through
`GIT_CONFIG_PARAMETERS`; nested repositories are not entered (`diff.ignoreSubmodules=dirty`:
their commit is compared, not their files), so no filter or textconv of theirs runs either.
Sweeping before each run instead would race the command still writing."""

FALLBACK_IDENTITY = ("tether", "tether@localhost")
"""The author of a task's commit when git has no identity for the repository (no
`user.name`/`user.email` anywhere): the work is committed all the same."""


class GitError(Exception):
    """A git command failed; the message names the command, the directory and git's words."""

    def __init__(self, args: Sequence[str], cwd: Path, stderr: str) -> None:
        self.stderr = stderr.strip()
        super().__init__(f"git {' '.join(args)} (in {cwd}) failed: {self.stderr or 'no output'}")


def git_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment git runs with: the process's, minus location variables, never asking
    on the terminal (a credential prompt would hang a worker)."""
    env = {k: v for k, v in os.environ.items() if k not in _LOCATION_VARIABLES}
    env["GIT_TERMINAL_PROMPT"] = "0"
    return {**env, **(extra or {})}


def run_git(
    cwd: Path, *args: str, check: bool = True, extra_env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run `git ARGS` in `cwd`; raises `GitError` when it fails and `check` is set. A command
    that reads the worktree records runs under the repository's worktree lock
    (`tether.teams.worktree_lock`)."""
    if reads_records(args):
        try:
            done = run_on_records(cwd, lambda: _run(cwd, args, extra_env), TIMEOUT_S)
        except RecordsLockError as e:
            raise GitError(args, cwd, str(e)) from e
    else:
        done = _run(cwd, args, extra_env)
    if check and done.returncode != 0:
        raise GitError(args, cwd, done.stderr or done.stdout)
    return done


def _run(
    cwd: Path, args: Sequence[str], extra_env: Mapping[str, str] | None
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["git", *HARNESS_OPTIONS, *args],
            cwd=cwd,
            env=git_env(extra_env),
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="surrogateescape",
            timeout=TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError as e:
        if not cwd.is_dir():  # the child could not enter it: git itself may be there
            raise GitError(args, cwd, "the directory does not exist (removed meanwhile?)") from e
        raise GitError(args, cwd, "git is not installed (or not on PATH)") from e
    except subprocess.TimeoutExpired as e:
        raise GitError(args, cwd, f"no answer after {TIMEOUT_S:g} s") from e


def git_out(cwd: Path, *args: str) -> str:
    """The stdout of a git command that must succeed, without its final newline."""
    return run_git(cwd, *args).stdout.rstrip("\n")


def identity_args(cwd: Path) -> tuple[str, ...]:
    """`-c` options giving tether's fixed identity when git has none for `cwd` (see
    `FALLBACK_IDENTITY`); nothing when git has one (the user's, as the sandbox passes it)."""
    if run_git(cwd, "var", "GIT_COMMITTER_IDENT", check=False).returncode == 0:
        return ()
    name, email = FALLBACK_IDENTITY
    return ("-c", f"user.name={name}", "-c", f"user.email={email}")


def nul_split(text: str) -> list[str]:
    """The records of a `-z` listing."""
    return [part for part in text.split("\0") if part]
