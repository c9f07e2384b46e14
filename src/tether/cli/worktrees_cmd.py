"""`tether worktrees list|merge TASK|clean`: review, merge and clean up task worktrees and
their branches (`tether/<task>`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tether.config.project import project_root
from tether.config.settings import load_settings, settings_files, tether_home
from tether.protocol import ConfigError
from tether.store.task_records import StoreUnavailable, TaskNotFound
from tether.store.task_store import default_store_path, open_task_store
from tether.teams.git import GitError
from tether.teams.membership import team_choice
from tether.teams.records import DEFAULT_TEAM, NoTaskBranch, WorktreeError
from tether.teams.review import (
    BranchState,
    Merged,
    branch_states,
    clean_worktrees,
    find_overlaps,
    merge_task,
)


def main(argv: list[str]) -> int:
    """0: done; 1: refused or failed, with the reason on stderr."""
    args = _parser().parse_args(argv)
    start = (args.cwd or Path.cwd()).expanduser().resolve()
    try:
        if args.command == "list":
            return _list(start)
        if args.command == "merge":
            merged = _merge(start, args)
            print(f"merged {merged.branch} into {merged.into} ({merged.commit[:12]})")
            return 0
        return _clean(start)
    except (WorktreeError, GitError, ConfigError) as e:
        print(f"tether worktrees: {e}", file=sys.stderr)
        return 1


def _merge(start: Path, args: argparse.Namespace) -> Merged:
    name = _task_name(start, args)
    try:
        return merge_task(start, name)
    except NoTaskBranch:
        if not _on_board(start, name):
            team, _, task_id = name.rpartition("/")
            raise WorktreeError(
                f"no task #{task_id} in team {team or DEFAULT_TEAM!r}, and no task branch of "
                "that name: nothing to merge (tether tasks list shows the tasks)"
            ) from None
        raise


def _on_board(start: Path, name: str) -> bool:
    """Whether the task `name` (`<team>/<id>` or a default team's id) is on its board; True
    when there is no board or it cannot be read (nothing is claimed about the task then)."""
    team, _, task_id = name.rpartition("/")
    project = project_root(start, user_home=Path.home())
    settings = load_settings(
        settings_files(project, home=tether_home(), user_home=Path.home(), start=start)
    )
    choice = team_choice(settings.data, os.environ, team=team or DEFAULT_TEAM)
    if choice.store_url is None and not default_store_path(project).exists():
        return True  # no board to ask (and none made here to look): nothing is claimed
    try:
        store = open_task_store(choice.store_url, project=project, team=choice.team, existing=True)
    except StoreUnavailable:
        return True
    try:
        store.get(task_id)
    except TaskNotFound:
        return False
    except StoreUnavailable:
        return True
    finally:
        store.close()
    return True


def _task_name(start: Path, args: argparse.Namespace) -> str:
    """What `merge` names: a branch or `<team>/<id>` as given; a bare id is the task of the
    team `--team`, TETHER_TEAM or the `teams.team` setting names (as every Teams command)."""
    given: str = args.task.removeprefix("#")
    if "/" in given:
        return given
    project = project_root(start, user_home=Path.home())
    settings = load_settings(
        settings_files(project, home=tether_home(), user_home=Path.home(), start=start)
    )
    team = team_choice(settings.data, os.environ, team=args.team).team
    return given if team == DEFAULT_TEAM else f"{team}/{given}"


def _list(start: Path) -> int:
    states = branch_states(start)
    if not states:
        print("No task branches.")
        return 0
    for state in states:
        print(_describe(state))
    overlaps = find_overlaps(states)
    if overlaps:
        print("\nFiles changed by more than one task branch (merging them may conflict):")
        for overlap in overlaps:
            print(f"  {overlap.describe()}")
    return 0


def _describe(state: BranchState) -> str:
    if state.unmerged:
        work = f"{state.unmerged} unmerged commit(s)"
    else:  # no commit of its own: merged, or nothing committed yet (a running task's work)
        work = "no unmerged commits" if state.uncommitted else "merged or empty"
    record = state.worktree
    if record is None:
        place = "no worktree"
    elif record.held_by_live_process():
        place = f"running in {record.path}"
    else:
        place = f"worktree {record.path}"
    files = f", {len(state.changed)} file(s) changed" if state.changed else ""
    if state.uncommitted:
        files += f" ({len(state.uncommitted)} not committed yet)"
    return f"task {state.task_id}  {state.branch}  {work}{files}; {place}"


def _clean(start: Path) -> int:
    cleaned = clean_worktrees(start)
    for note in cleaned.notes:
        print(note)
    for branch in cleaned.removed:
        print(f"removed {branch} (merged or empty)")
    for why in cleaned.kept:
        print(f"kept {why}")
    if not (cleaned.notes or cleaned.removed or cleaned.kept):
        print("Nothing to clean.")
    return 0


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--cwd", type=Path, help="the repository (default: here)")
    p = argparse.ArgumentParser(prog="tether worktrees", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser(
        "list", parents=[common], help="task branches, their worktrees, files two of them changed"
    )
    merge = sub.add_parser(
        "merge", parents=[common], help="merge a task's branch into the current branch"
    )
    merge.add_argument(
        "task", help="a task id (<team>/<id> for a team other than default), or a task branch"
    )
    merge.add_argument(
        "--team", help="the team of a bare task id (default: TETHER_TEAM, teams.team, default)"
    )
    sub.add_parser(
        "clean", parents=[common], help="remove merged or empty task branches and their worktrees"
    )
    return p
