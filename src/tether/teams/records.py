"""What git knows about a repository's worktrees and tether's task branches, read fresh each
time (git is the only record: nothing to drift out of date when a run is killed)."""

from __future__ import annotations

import os
import re
import socket
from dataclasses import dataclass
from pathlib import Path

from tether.teams.git import git_out, run_git

BRANCH_PREFIX = "tether/"
WORKTREES_DIR = Path(".tether") / "worktrees"
DEFAULT_TEAM = "default"
"""The team whose tasks are named by their id alone (`tether/7`); another team's are named
`<team>/<id>` (`tether/docs/7`, `.tether/worktrees/docs/7`): two teams of one repository
never share a branch or a worktree."""
_NAME = r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}"
_TASK_ID = re.compile(_NAME)
_TEAM = re.compile(r"(?![0-9]+$)(?!.*\.\.)(?!.*\.$)(?!.*\.lock$)[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
"""A team that can name branches and directories: git's rules for a ref's part, and not
digits alone (`tether/7/...` would clash with the default team's branch of task 7)."""
ATTEMPT = re.compile(
    r"(?:(?P<team>[A-Za-z0-9][A-Za-z0-9._-]*)/)?(?P<task>[A-Za-z0-9][A-Za-z0-9_-]*)"
    r"(?:\.(?P<attempt>[0-9]+))?"
)
"""A task branch's name after `tether/`: the task's name (`7`, or `docs/7` for team docs),
then `.N` for an Nth attempt (names older runs made; a task id has no dot)."""
LOCK_REASON = re.compile(
    r"tether task (?P<task>\S+): pid (?P<pid>[0-9]+) on (?P<host>[^\s,]+)"
    r"(?:, claim (?P<fence>[0-9]+))?(?: of (?P<owner>\S+))?"
)


class WorktreeError(Exception):
    """Something the user must act on: the message says what happened and what to do."""


class NoTaskBranch(WorktreeError):
    """A task named for a merge has no branch (it committed nothing, its work is merged, or
    there is no such task: the board tells which)."""


class WorktreeBusy(WorktreeError):
    """The task's worktree is held by a live run of another task of the same id (an earlier
    board's, whose run has not ended yet): the task waits for it, uncounted."""


class RepositoryError(WorktreeError):
    """No task can have a worktree here (no repository of the project's own, a detached HEAD,
    no commit yet, a team name that cannot name branches): every task would meet it, so a
    worker refuses once, before claiming, and gives back a task it met it with."""


class WorktreeHookFailed(RepositoryError):
    """A WorktreeCreate hook did not make the worktree (it failed, or printed no path). As in
    Claude Code, the creation fails; the hook is the project's configuration, not the task's
    doing, and would meet every task: a worker gives the task back uncounted and stops."""


def check_task_id(task_id: str) -> str:
    """`task_id` if it can name a directory and a branch as is; `WorktreeError` otherwise."""
    if not _TASK_ID.fullmatch(task_id):
        raise WorktreeError(
            f"task id {task_id!r} cannot name a worktree: use letters, digits, '-' and '_' "
            "(at most 100, starting with a letter or digit)"
        )
    return task_id


def task_name(team: str, task_id: str) -> str:
    """The name of a team's task in its branch and worktree path: the id for the default team
    (the names of earlier versions), `<team>/<id>` for another. `WorktreeError` for a team or
    id that cannot name a branch and a directory."""
    check_task_id(task_id)
    if team == DEFAULT_TEAM:
        return task_id
    if not _TEAM.fullmatch(team):
        raise RepositoryError(
            f"team {team!r} cannot name task branches and worktrees: use letters, digits, '.', "
            "'-' and '_' (at most 100, starting with a letter or digit, not digits alone, no "
            "'..', not ending in '.' or '.lock')"
        )
    return f"{team}/{task_id}"


def branch_task(branch: str) -> tuple[str, int] | None:
    """(task name, attempt) of a task branch name (`tether/7.2` -> ("7", 2), `tether/docs/7`
    -> ("docs/7", 1)); None for others."""
    if not branch.startswith(BRANCH_PREFIX):
        return None
    found = ATTEMPT.fullmatch(branch.removeprefix(BRANCH_PREFIX))
    if found is None:
        return None
    name = f"{found['team']}/{found['task']}" if found["team"] else found["task"]
    return name, int(found["attempt"] or 1)


def attempt_branch(name: str, attempt: int) -> str:
    return f"{BRANCH_PREFIX}{name}" + (f".{attempt}" if attempt > 1 else "")


def lock_reason(name: str, fence: int | None = None, owner: str | None = None) -> str:
    """What tether writes as the lock reason of a task's worktree: which process holds it, and
    under which claim (the claim's fence) of which task (`branch_owner.task_owner`: ids and
    fences start again on a new board), so that the next holder of the task's claim knows the
    lock as a lapsed one, and another task of the same id knows it is not its own."""
    claim = f", claim {fence}" if fence is not None else ""
    claim += f" of {owner}" if fence is not None and owner is not None else ""
    return f"tether task {name}: pid {os.getpid()} on {socket.gethostname()}{claim}"


@dataclass(frozen=True)
class WorktreeRecord:
    """One entry of `git worktree list --porcelain`."""

    path: Path
    head: str | None
    branch: str | None
    """Without `refs/heads/`; None when detached (or bare)."""
    locked: str | None
    """The lock reason ("" when locked without one); None when not locked."""
    prunable: bool

    def holder(self) -> tuple[int, str] | None:
        """(pid, host) of the tether process that locked it, if tether did."""
        found = LOCK_REASON.fullmatch(self.locked or "")
        return (int(found["pid"]), found["host"]) if found else None

    def lapsed_for(self, name: str, fence: int, owner: str | None = None) -> bool:
        """Locked by tether for task `name` (the task `owner`, when both name it) under a
        claim older than `fence`: the store has given the task to the claim `fence` since, so
        that holder's lease is gone, whether or not its process still runs (paused, say)."""
        found = LOCK_REASON.fullmatch(self.locked or "")
        if found is None or found["task"] != name or self.other_task(owner):
            return False
        return found["fence"] is None or int(found["fence"]) < fence

    def other_task(self, owner: str | None) -> str | None:
        """The task the lock names when it is not `owner` (another task of the same id, an
        earlier board's); None when it is, or when either is unknown."""
        found = LOCK_REASON.fullmatch(self.locked or "")
        held = found["owner"] if found is not None else None
        return held if held is not None and owner is not None and held != owner else None

    def held_by_live_process(self) -> bool:
        """Locked by a tether process that still runs (or one on another host, which cannot be
        checked from here, so is taken as running)."""
        holder = self.holder()
        if holder is None:
            return False
        pid, host = holder
        return host != socket.gethostname() or _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def worktree_records(repo: Path) -> list[WorktreeRecord]:
    """Every worktree git has registered for `repo`, the main one first."""
    records: list[WorktreeRecord] = []
    for block in git_out(repo, "worktree", "list", "--porcelain", "-z").split("\0\0"):
        fields: dict[str, str] = {}
        for line in block.split("\0"):
            key, _, value = line.partition(" ")
            if key:
                fields[key] = value
        if "worktree" not in fields:
            continue
        branch = fields.get("branch")
        records.append(
            WorktreeRecord(
                path=Path(fields["worktree"]),
                head=fields.get("HEAD"),
                branch=branch.removeprefix("refs/heads/") if branch else None,
                locked=fields.get("locked"),
                prunable="prunable" in fields,
            )
        )
    return records


def main_worktree(start: Path) -> Path:
    """The main worktree of the repository holding `start` (from a task's worktree too)."""
    if not start.is_dir():
        raise RepositoryError(f"{start} is not a directory")
    probe = run_git(
        start, "rev-parse", "--is-bare-repository", "--is-inside-work-tree", check=False
    )
    if probe.stdout.split() != ["false", "true"]:
        raise RepositoryError(f"{start} is not inside a git work tree: task worktrees need one")
    return worktree_records(start)[0].path


def project_repository(project: Path) -> Path:
    """The main worktree of the project's own repository: `project` must be the top of a git
    work tree (the main one or a linked one). A repository found further up (a home
    directory's dotfiles, say) is not the project's: its worktrees would hold everything
    else in it, so it is refused, naming it."""
    if not project.is_dir():
        raise RepositoryError(f"{project} is not a directory")
    top = run_git(project, "rev-parse", "--show-toplevel", check=False).stdout.strip()
    if top and not _same_dir(Path(top), project):
        raise RepositoryError(
            f"{project} is not a git repository of its own (the nearest one is {top}, which "
            "holds more than this project): task worktrees are made only in the project's "
            f"repository. Make one first (git -C {project} init, then a first commit), or run "
            "without --worktrees"
        )
    return main_worktree(project)


def _same_dir(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def task_branches(repo: Path) -> list[str]:
    """Every local `tether/...` branch that names a task attempt, sorted."""
    return list(task_branch_tips(repo))


def task_branch_tips(repo: Path) -> dict[str, str]:
    """Every local `tether/...` branch that names a task attempt, sorted, with its commit, in
    one read. Another worker deletes its task's empty branch whenever its task ends: what is
    read of a listed branch afterwards is read from the commit, which stays, not by its name,
    which may be gone by then."""
    listed = git_out(
        repo, "for-each-ref", "--format=%(refname:short)%00%(objectname)", "refs/heads/tether/"
    )
    tips = dict(line.split("\0", 1) for line in listed.splitlines() if "\0" in line)
    return {name: tips[name] for name in sorted(tips) if branch_task(name) is not None}


def check_repository(project: Path) -> str:
    """What every task's pre-flight checks of the repository itself, for a worker to refuse
    once, before claiming anything: the project's own repository, on a branch with a commit.
    The branch; `RepositoryError` saying what to do."""
    return current_branch(project_repository(project))


def current_branch(repo: Path) -> str:
    done = run_git(repo, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    if done.returncode != 0:
        head = run_git(repo, "rev-parse", "--short", "HEAD", check=False).stdout.strip()
        raise RepositoryError(
            f"the repository at {repo} is on a detached HEAD ({head or 'no commit'}): task "
            "worktrees start from a branch and are merged back into it. Switch to a branch "
            f"first: git -C {repo} switch <branch> (or git switch -c <new-branch> to keep "
            "this commit)"
        )
    if run_git(repo, "rev-parse", "--verify", "--quiet", "HEAD", check=False).returncode != 0:
        raise RepositoryError(
            f"the branch {done.stdout.strip()} at {repo} has no commit yet: task worktrees "
            "start from a commit. Commit something first"
        )
    return done.stdout.strip()
