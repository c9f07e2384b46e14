"""`tether board`: a team's board, live: tasks by state, owner, lease, dependencies, cost.

The store is read once per `--interval` (one query in SQLite, one pipelined round trip in
Redis) and the view redrawn from it, so lease clocks move too; `--json` prints one snapshot.
On a pipe or a file (no terminal) the view is printed once, as text. An outage of the store
is shown in the view, and the view carries on when it answers again.

Exit codes: 0; 2 the store or the settings cannot be used, naming it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from tether.cli.tasks_cmd import add_board_options, open_store, task_json
from tether.cli.terminal_text import terminal_line
from tether.protocol import ConfigError
from tether.store.task_records import StoreAbsent, StoreUnavailable, Task
from tether.store.task_store import TaskStore

PIPE_WIDTH = 160
STATE_ORDER = ("in_progress", "pending", "blocked", "failed", "completed")
STATE_STYLE = {
    "in_progress": "bold cyan",
    "pending": "default",
    "blocked": "yellow",
    "failed": "bold red",
    "completed": "green",
}


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        store: TaskStore | _NoBoard = open_store(args, read_only=True)
    except StoreAbsent as e:
        if e.named:
            print(f"tether: error: {e}", file=sys.stderr)
            return 2
        store = _NoBoard(e)  # the project's board is not made yet: shown empty, not made
    except (ConfigError, StoreUnavailable) as e:
        print(f"tether: error: {e}", file=sys.stderr)
        return 2
    try:
        if args.json:
            print(json.dumps(snapshot(store, store.list(), time.time()), ensure_ascii=False))
        elif not sys.stdout.isatty():
            # A pipe has no width: wide enough that a row stays a line (COLUMNS still wins).
            console = Console(width=None if "COLUMNS" in os.environ else PIPE_WIDTH)
            console.print(board_view(store, store.list(), time.time()))
        else:
            _watch(store, args)
        return 0
    except StoreUnavailable as e:
        print(f"tether: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    finally:
        store.close()


class _NoBoard:
    """The board of a project where no task was added yet: empty, and no file made for it."""

    def __init__(self, absent: StoreAbsent) -> None:
        self.team, self.url = absent.team, str(absent.where)

    def list(self) -> list[Task]:
        return []

    def close(self) -> None:
        pass


def snapshot(store: TaskStore | _NoBoard, tasks: Sequence[Task], now: float) -> dict[str, Any]:
    """The board as one JSON object: counts by state, spend, and every task with the age of
    its claim (`lease_age_s`: seconds since it was claimed, for tasks in progress)."""
    counts = Counter(t.status for t in tasks)
    return {
        "team": store.team,
        "store": store.url,
        "at": now,
        "counts": {state: counts.get(state, 0) for state in STATE_ORDER},
        "cost_usd": sum(t.cost_usd for t in tasks),
        "tasks": [
            {**task_json(t), "lease_age_s": _lease_age(t, now)}
            for t in sorted(tasks, key=_state_then_id)
        ],
    }


def board_view(
    store: TaskStore | _NoBoard,
    read: Sequence[Task] | None,
    now: float,
    *,
    problem: str | None = None,
) -> Group:
    """The board as the terminal shows it: a summary line, then one row per task (`read`:
    None while no board could be read yet)."""
    tasks = read or ()
    counts = Counter(t.status for t in tasks)
    summary = Text(f"team {store.team} ({store.url})\n")
    for state in STATE_ORDER if read is not None else ():
        summary.append(f"{state} {counts.get(state, 0)}  ", style=STATE_STYLE[state])
    if read is not None:
        summary.append(f"cost ${sum(t.cost_usd for t in tasks):.4f}")
    parts: list[RenderableType] = [summary]
    if problem is not None:
        parts.append(Text(problem, style="bold red"))
    if read is not None:
        parts.append(_Fitted(tasks, now) if tasks else Text("No tasks yet."))
    return Group(*parts)


@dataclass(frozen=True)
class _Fitted:
    """The tasks' table, each column as wide as its text when the terminal has the room;
    when it has not, the owner and dependencies give way first (`_COLUMNS`)."""

    tasks: Sequence[Task]
    now: float

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        roomy = _table(self.tasks, self.now, narrow=False)
        unbounded = options.update_width(1 << 16)  # its natural width, not the terminal's
        if Measurement.get(console, unbounded, roomy).maximum <= options.max_width:
            yield roomy
        else:
            yield _table(self.tasks, self.now, narrow=True)


def _table(tasks: Sequence[Task], now: float, *, narrow: bool) -> Table:
    table = Table(expand=False, pad_edge=False, box=None, header_style="bold", padding=(0, 1, 0, 0))
    for column in ("#", "state", "pri", "subject", "owner", "lease", "after", "tries", "cost"):
        given = _COLUMNS.get(column, {"no_wrap": True})
        if not narrow:
            given = {k: v for k, v in given.items() if k != "max_width"}
        table.add_column(column, **given)
    for task in sorted(tasks, key=_state_then_id):
        table.add_row(  # text from agents and stores as Text: never read as markup
            Text(task.id),
            Text(task.status, style=STATE_STYLE[task.status]),
            Text(task.priority),
            _subject(task),
            Text(terminal_line(task.owner or "")),
            Text(_lease(task, now)),
            Text(terminal_line(", ".join(f"#{d}" for d in task.depends_on))),
            str(task.attempts),
            f"${task.cost_usd:.4f}",
        )
    return table


_COLUMNS: dict[str, dict[str, Any]] = {
    # The subject keeps room on a narrow terminal: it wraps, and the owner (a long worker
    # name) and dependencies give way first. The owner folds rather than being cut: workers
    # differ by the pid and host at the end of their names (`worker-PID@HOST`).
    "subject": {"min_width": 12, "ratio": 1, "overflow": "fold"},
    "owner": {"max_width": 10, "overflow": "fold"},
    "lease": {"overflow": "fold"},
    "after": {"max_width": 6, "overflow": "fold"},
    "cost": {"min_width": 7, "no_wrap": True},
}


def _watch(store: TaskStore | _NoBoard, args: argparse.Namespace) -> None:
    """Redraw until Ctrl+C; an outage of the store is shown, not fatal; a board not made yet
    is looked for again at each redraw (a first `tether tasks add` makes it)."""
    from rich.live import Live

    tasks: list[Task] | None = None

    def view() -> Group:
        problem = None
        nonlocal tasks, store
        try:
            if isinstance(store, _NoBoard):
                with contextlib.suppress(StoreAbsent):
                    store = open_store(args, read_only=True)
            tasks = store.list()
        except StoreUnavailable as e:
            shown = "the last board read" if tasks is not None else "no board yet"
            problem = f"{e} (showing {shown}; trying again)"
        return board_view(store, tasks, time.time(), problem=problem)

    # The first frame is the board read, never an empty one drawn before the read.
    try:
        with Live(view(), auto_refresh=False) as live:
            while True:
                time.sleep(args.interval)
                live.update(view(), refresh=True)
    finally:
        store.close()  # the one opened here, when the board was made meanwhile


def _state_then_id(task: Task) -> tuple[int, int]:
    return STATE_ORDER.index(task.status), task.seq


def _subject(task: Task) -> Text:
    text = Text(terminal_line(task.subject))
    reason = task.blocked_reason if task.status == "blocked" else task.error
    if reason:
        text.append(f"\n{terminal_line(reason)}", style="dim")
    return text


def _lease_age(task: Task, now: float) -> float | None:
    if task.status != "in_progress" or task.started_at is None:
        return None
    return round(max(0.0, now - task.started_at), 3)


def _lease(task: Task, now: float) -> str:
    """How long the claim has run, and how long its lease has left."""
    age = _lease_age(task, now)
    if age is None or task.lease_expires_at is None:
        return ""
    left = task.lease_expires_at - now
    return f"{age:.0f}s, " + (f"{left:.0f}s left" if left >= 0 else "expired")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tether board",
        description="A team's board, live: tasks by state, owner, lease, dependencies, cost.",
    )
    add_board_options(p)
    p.add_argument("--json", action="store_true", help="print one snapshot as JSON")
    p.add_argument(
        "--interval", type=float, default=1.0, metavar="SECONDS", help="how often to read"
    )
    p.add_argument("--cwd", type=Path, help="the project (default: here)")
    return p
