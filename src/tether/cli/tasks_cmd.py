"""`tether tasks add|list|show|retry|rm`: a team's task board, for people and scripts.

Exit codes: 0 done; 1 the board refused (an unknown task or dependency, a cycle, a task in
the wrong state), with the reason; 2 the store cannot be used (unreachable Redis, a file that
is not a task store, broken settings), naming it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from tether.cli.terminal_text import terminal_line, terminal_safe
from tether.config.project import project_root
from tether.config.settings import load_settings, settings_files, tether_home
from tether.protocol import ConfigError
from tether.store.task_records import (
    NewTask,
    StoreAbsent,
    StoreUnavailable,
    Task,
    TaskStoreError,
)
from tether.store.task_store import TaskStore, open_task_store
from tether.teams.membership import team_choice
from tether.teams.records import WorktreeError, task_name

CHANGING = ("add", "retry", "rm")
"""The commands that change the board: each change is an event (`TaskChanged`)."""


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    say_reaped(tether_home())
    try:  # only add makes a store: the others read, and no file is made by reading
        store = open_store(args, read_only=args.command != "add")
    except StoreAbsent as e:
        return _nothing_added(args, e, sys.stdout)
    except (ConfigError, StoreUnavailable) as e:
        return _error(str(e), 2)
    close_events = None
    if args.command in CHANGING:  # a task created, retried, removed: an event, as a claim is
        from tether.cli.board_events import observed_store, process_name

        start = (args.cwd or Path.cwd()).expanduser().resolve()
        project = project_root(start, user_home=Path.home())
        try:
            store, close_events = observed_store(
                store, process_name("tasks"), project=project, env=os.environ, start=start
            )
        except ConfigError as e:
            store.close()
            return _error(str(e), 2)
    try:
        return _run(args, store, sys.stdout)
    except TaskStoreError as e:
        return _error(str(e), 1)
    except StoreUnavailable as e:
        return _error(str(e), 2)
    finally:
        store.close()
        if close_events is not None:
            close_events()


def _run(args: argparse.Namespace, store: TaskStore, out: TextIO) -> int:
    if args.command == "add":
        new = NewTask(
            subject=args.subject,
            description=args.description or "",
            depends_on=[_task_id(d) for d in args.depends_on],
            priority=args.priority,
            metadata={"isolation": args.isolation} if args.isolation else {},
        )
        print(store.create(new).id, file=out)
    elif args.command == "list":
        tasks = store.list()
        if args.json:
            print(json.dumps([task_json(t) for t in tasks], ensure_ascii=False), file=out)
        else:
            print_board(tasks, store, out)
    elif args.command == "show":
        task = store.get(_task_id(args.id))
        if args.json:
            print(json.dumps(task_json(task), ensure_ascii=False, indent=2), file=out)
        else:
            print_task(task, out)
    elif args.command == "retry":
        task = store.retry(_task_id(args.id))
        print(f"#{task.id} is pending again ({terminal_safe(task.subject)})", file=out)
    else:
        task = store.remove(_task_id(args.id))
        print(f"Removed #{task.id} ({terminal_safe(task.subject)})", file=out)
    return 0


def _nothing_added(args: argparse.Namespace, absent: StoreAbsent, out: TextIO) -> int:
    """A command that reads, where the project's board was never made: `list` shows it empty,
    the others have no task to act on. A named store that is not there is a mistake, said."""
    if absent.named:
        return _error(str(absent), 2)
    if args.command == "list":
        if args.json:
            print("[]", file=out)
        else:
            print(f"No tasks in team {absent.team!r} (none added yet: {absent.where}).", file=out)
        return 0
    return _error(f"no task #{_task_id(args.id)}: {absent}", 1)


def open_store(
    args: argparse.Namespace, *, existing: bool = False, read_only: bool = False
) -> TaskStore:
    """The store and team `--store`, `--team` and `--cwd` (or what stands for them) name;
    `existing`: a command on tasks already there, which refuses a store file that is not;
    `read_only`: a command that only reads, which makes no store file (`StoreAbsent`)."""
    start = (args.cwd or Path.cwd()).expanduser().resolve()
    user_home = Path.home()
    project = project_root(start, user_home=user_home)
    settings = load_settings(
        settings_files(project, home=tether_home(), user_home=user_home, start=start)
    )
    choice = team_choice(settings.data, os.environ, team=args.team, store=args.store)
    if not (existing or read_only):  # a task added must be one a worker can run, worktrees too
        try:
            task_name(choice.team, "1")
        except WorktreeError as e:
            raise ConfigError(str(e)) from None
    return open_task_store(
        choice.store_url, project=project, team=choice.team, existing=existing, read_only=read_only
    )


def say_reaped(home: Path) -> None:
    """Clean up after the runs of killed tether processes (a worker killed with SIGKILL leaves
    its commands running when no sandbox ended them): their commands stopped, their temporary
    files and scratch directories removed (`tether.tools.run_record`); said on stderr."""
    from tether.tools.run_record import reap_dead_runs

    for reaped in reap_dead_runs(home):
        if (notice := reaped.notice()) is not None:
            print(f"tether: {terminal_safe(notice)}", file=sys.stderr)


def _task_id(text: str) -> str:
    """`#3` and `3` name the same task."""
    return text.removeprefix("#")


def _error(message: str, code: int) -> int:
    print(f"tether: error: {terminal_safe(message)}", file=sys.stderr)
    return code


def task_json(task: Task) -> dict[str, Any]:
    """A task as JSON: the stored record, with `blocks` and Claude Code's `blockedBy`."""
    return {**task.model_dump(mode="json"), "blockedBy": task.depends_on}


def print_board(tasks: Sequence[Task], store: TaskStore, out: TextIO) -> None:
    if not tasks:
        print(f"No tasks in team {store.team!r} ({store.url}).", file=out)
        return
    done = {t.id for t in tasks if t.status == "completed"}
    for task in tasks:
        deps = _dependencies(task, done)
        owner = f"  [{terminal_line(task.owner)}]" if task.owner else ""
        print(
            f"#{task.id:<4} {task.status:<11} {task.priority:<6} "
            f"{terminal_line(task.subject)}{owner}{deps}",
            file=out,
        )
        if task.status == "blocked" and task.blocked_reason:
            print(f"      blocked: {_first_line(task)}", file=out)


def _first_line(task: Task) -> str:
    """A blocked task's reason in one line of the listing (a failure's text may run to many
    lines: its first, and where to read the rest)."""
    reason = (task.blocked_reason or "").strip()
    first, _, rest = reason.partition("\n")
    more = f" ... (tether tasks show {task.id})" if rest.strip() else ""
    return terminal_line(first.rstrip()) + more


def _dependencies(task: Task, done: set[str]) -> str:
    """What a task waits for (a pending task that waits cannot be claimed yet), or that its
    dependencies are done."""
    waiting = [d for d in task.depends_on if d not in done]
    if task.status in ("pending", "blocked") and waiting:
        return f"  waits for {', '.join('#' + d for d in waiting)}"
    if task.depends_on:
        return f"  after {', '.join('#' + d for d in task.depends_on)}"
    return ""


def print_task(task: Task, out: TextIO) -> None:
    lines = [
        f"Task #{task.id}: {terminal_line(task.subject)}",
        f"Status: {task.status}" + (f" (owner {terminal_line(task.owner)})" if task.owner else ""),
        f"Priority: {task.priority}",
    ]
    if task.description:
        lines.append(f"Description: {task.description}")
    if task.depends_on:
        lines.append("Blocked by: " + ", ".join(f"#{d}" for d in task.depends_on))
    if task.blocks:
        lines.append("Blocks: " + ", ".join(f"#{d}" for d in task.blocks))
    if task.blocked_reason:
        lines.append(f"Blocked: {task.blocked_reason}")
    if task.lease_expires_at is not None:
        lines.append(f"Lease until: {_time(task.lease_expires_at)}")
    lines.append(f"Attempts: {task.attempts}  Cost: ${task.cost_usd:.4f}")
    lines.append(f"Created: {_time(task.created_at)}  Updated: {_time(task.updated_at)}")
    run = task.metadata.get("run")
    if isinstance(run, dict) and run.get("session_id"):  # a worker's (tether.teams.worker)
        session = run["session_id"]  # pyright: ignore[reportUnknownVariableType]
        lines.append(f"Session: {session} (tether --resume {session})")
    if task.result is not None:
        lines.append(f"Result: {task.result}")
    if task.error is not None:
        lines.append(f"Error: {task.error}")
    for line in lines:
        print(terminal_safe(line), file=out)


def _time(when: float) -> str:
    return datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tether tasks", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add", help="add a task; prints its id")
    add.add_argument("subject")
    add.add_argument("--description", help="what needs to be done")
    add.add_argument(
        "--depends-on", action="append", default=[], metavar="ID", help="a task to wait for"
    )
    add.add_argument("--priority", choices=("high", "medium", "low"), default="medium")
    add.add_argument(
        "--isolation",
        choices=("worktree",),
        help="worktree: a worker runs it in a git worktree of its own (as tether worker "
        "--worktrees does for every task)",
    )
    listing = sub.add_parser("list", help="every task of the team, oldest first")
    show = sub.add_parser("show", help="one task, whole")
    show.add_argument("id")
    retry = sub.add_parser("retry", help="a failed task back to pending; unblocks its dependents")
    retry.add_argument("id")
    rm = sub.add_parser("rm", help="delete a task nothing depends on")
    rm.add_argument("id")
    for command in (add, listing, show, retry, rm):
        add_board_options(command)
        command.add_argument("--cwd", type=Path, help="the project (default: here)")
    for command in (listing, show):
        command.add_argument("--json", action="store_true", help="print JSON")
    return p


def add_board_options(p: argparse.ArgumentParser) -> None:
    """--team and --store, as every command on a team's board takes them."""
    p.add_argument("--team", help="the team (default: TETHER_TEAM, teams.team, default)")
    p.add_argument(
        "--store",
        metavar="URL",
        help="redis://host:port/db, sqlite:///path or a file (default: TETHER_TEAM_STORE, "
        "teams.store, .tether/tasks.db)",
    )
