"""`tether worker`: autonomous workers on a team's board, each a process of its own.

With `--count N` (N > 1) this process starts N worker processes and waits for them,
passing Ctrl+C, SIGTERM and SIGHUP on; they watch a pipe from it, so that when it dies, even by
SIGKILL, each stops as on SIGTERM (its task given back). With one it is the worker.

A worker claims a task, runs it in a fresh headless session (the project's tools, rules,
hooks and sandbox; what no rule allows is denied, as with -p; the transcript saved and
resumable with `tether --resume ID`), records the result, and claims the next. As with -p,
an untrusted workspace's own hooks, servers and grants are skipped (said once) unless
`--trust-workspace` or `TETHER_TRUST_WORKSPACE=1`. The first Ctrl+C, SIGTERM or SIGHUP (the
terminal closed) stops the running session and gives its task back to the board (not a
counted attempt); a second one stops at once (the lease then runs out and the task is
claimed again).

A store that is down is waited for (backoff); one that is damaged (a malformed SQLite file)
or lost (a Redis board whose data is gone) stops the worker at once, naming it and the task
it held (whose work stays committed on its branch). A stop while the store is down does not
wait for it.

Exit codes: 0 done (`--until-idle`: nothing pending or running; failed and blocked tasks
left are named in a last line); 2 the store, the settings
or the repository (`--worktrees`) cannot be used, naming it; 128+N stopped by signal N.
With `--count N`, the worst of the workers' codes; a worker killed by signal N (SIGKILL, the
OOM killer) counts as 128+N, and is said when it dies (with the tasks it held, which go back
to the board once their leases run out) and in a last summary line.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from tether.cli.board_events import observed_store, process_name
from tether.cli.tasks_cmd import add_board_options, say_reaped
from tether.cli.terminal_text import terminal_safe
from tether.cli.worker_pool import STOP_SIGNALS, parent_pipe, run_many
from tether.config.project import project_root
from tether.config.settings import load_settings, settings_files, tether_home
from tether.protocol import ConfigError
from tether.store.store_url import redacted
from tether.store.task_records import (
    DEFAULT_LEASE_S,
    StoreDamaged,
    StoreLost,
    StoreUnavailable,
)
from tether.store.task_store import TaskStore, default_store_path, open_task_store
from tether.teams.membership import OWNER_ENV, STORE_ENV, TEAM_ENV, TeamChoice, team_choice
from tether.teams.records import RepositoryError, check_repository, task_name


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:  # refused once, before any worker starts or any task is claimed
        project, choice, store = _open_board(args)
    except (ConfigError, StoreUnavailable) as e:
        return _error(str(e))
    try:
        if args.worktrees:
            task_name(choice.team, "1")
            check_repository(project)
    except (ConfigError, RepositoryError) as e:
        store.close()
        return _error(str(e))
    if args.count > 1:
        store.close()
        return run_many(argv, args.count, held_by=lambda owner: _held_by(args, owner), serve=main)
    say_reaped(tether_home())  # a worker killed here before left commands running?
    try:
        return asyncio.run(_serve(args, project, choice, store))
    except (ConfigError, RepositoryError) as e:
        return _error(str(e))
    finally:
        store.close()


def _open_board(args: argparse.Namespace) -> tuple[Path, TeamChoice, TaskStore]:
    """The project, the team and its store, from the options and settings."""
    start = (args.cwd or Path.cwd()).expanduser().resolve()
    project = project_root(start, user_home=Path.home())
    settings = load_settings(
        settings_files(project, home=tether_home(), user_home=Path.home(), start=start)
    )
    choice = team_choice(settings.data, os.environ, team=args.team, store=args.store)
    # a store named by URL must exist: a mistyped path is not made into an empty board
    store = open_task_store(choice.store_url, project=project, team=choice.team, existing=True)
    return project, choice, store


def _held_by(args: argparse.Namespace, owner: str) -> list[str]:
    """The tasks `owner` holds on the board (for a worker that died: which go back to the
    board once their leases run out); none when the board cannot be read."""
    try:
        _, _, store = _open_board(args)
    except (ConfigError, StoreUnavailable):
        return []
    try:
        tasks = store.list()
    except StoreUnavailable:
        return []
    finally:
        store.close()
    return [
        f"task #{t.id} ({t.subject})"
        for t in tasks
        if t.status == "in_progress" and t.owner == owner
    ]


async def _serve(
    args: argparse.Namespace, project: Path, choice: TeamChoice, store: TaskStore
) -> int:
    from tether.cli.worker_session import WorkerSessions
    from tether.teams.store_calls import StoreCalls
    from tether.teams.worker import Worker
    from tether.teams.worker_ran import WorkerOptions

    owner = process_name("worker")

    def say(line: str) -> None:
        print(f"{owner}: {terminal_safe(line)}", flush=True)

    store_url = choice.store_url or str(default_store_path(project))
    sessions = WorkerSessions(
        project=project,
        model=args.model,
        trust_workspace=args.trust_workspace,
        notify=lambda notice: print(f"tether: {terminal_safe(notice)}", file=sys.stderr),
        env={
            **os.environ,
            TEAM_ENV: choice.team,
            STORE_ENV: store_url,
            OWNER_ENV: owner,
        },
    )
    sessions.project_hooks()  # a settings error is said before any claim, not after one
    observed, close_events = observed_store(  # in the event log, webhooks and telemetry
        store, owner, project=project, env=sessions.env, trust_flag=args.trust_workspace
    )
    worker = Worker(
        calls=StoreCalls(observed, say=say),
        options=WorkerOptions(
            owner=owner,
            team=choice.team,
            lease_s=args.lease,
            until_idle=args.until_idle,
            worktrees=args.worktrees,
        ),
        project=project,
        make_session=sessions.make,
        say=say,
        worktree_hooks=sessions.project_hooks,
    )
    seen: list[int] = []
    main_task = asyncio.current_task()
    loop = asyncio.get_running_loop()

    def on_signal(signum: int) -> None:
        seen.append(signum)
        if len(seen) == 1:
            worker.stop(f"stopped by {signal.Signals(signum).name}")
        elif main_task is not None:
            main_task.cancel()

    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, on_signal, signum)
    parent = parent_pipe()
    if parent is not None:

        def on_parent_gone() -> None:
            loop.remove_reader(parent)
            say("the parent tether worker is gone: stopping")
            worker.stop("the parent tether worker is gone")

        loop.add_reader(parent, on_parent_gone)
    say(f"working on team {choice.team!r} ({redacted(store_url)})")  # no password shown
    failed: StoreUnavailable | None = None
    try:
        await worker.run()
    except asyncio.CancelledError:
        say("stopped at once; a task held now goes back to the board when its lease runs out")
    except StoreUnavailable as e:
        failed = e
    finally:
        close_events()
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)
        if parent is not None:
            loop.remove_reader(parent)
            os.close(parent)
    if failed is not None:
        say(f"stopped after {len(worker.done)} task(s)")
        return _store_failed(failed, worker.held, say, signum=seen[0] if seen else None)
    say(f"stopped after {len(worker.done)} task(s)")
    if args.until_idle and not seen:
        _say_left(store, say)
    return 128 + seen[0] if seen else 0


def _say_left(store: TaskStore, say: Callable[[str], None]) -> None:
    """What `--until-idle` leaves on the board that no worker will run: failed and blocked
    tasks, named, with how to run them again."""
    try:
        tasks = store.list()
    except StoreUnavailable:
        return
    failed = [f"#{t.id}" for t in tasks if t.status == "failed"]
    blocked = [f"#{t.id}" for t in tasks if t.status == "blocked"]
    if not failed and not blocked:
        return
    parts = [f"{len(failed)} failed ({', '.join(failed)})"] if failed else []
    parts += [f"{len(blocked)} blocked ({', '.join(blocked)})"] if blocked else []
    retry = f"; `tether tasks retry {failed[0][1:]}` runs a failed one again" if failed else ""
    say(f"left on the board: {' and '.join(parts)}{retry}")


def _store_failed(
    e: StoreUnavailable, held: str | None, say: Callable[[str], None], *, signum: int | None
) -> int:
    """A store that failed for good (damaged, lost), or that was down when the worker was
    told to stop: said, naming the store and the task held. 2, or 128+N when stopped by
    signal N while the store was only down."""
    lasting = isinstance(e, StoreDamaged | StoreLost)
    if held is not None:
        fate = (
            "nothing was recorded for it"
            if lasting
            else "it goes back to the board when its lease runs out"
        )
        say(f"was holding {held}: {fate}")
    if signum is not None and not lasting:
        say(f"stopped while the task store was unavailable: {e}")
        return 128 + signum
    return _error(str(e))


def _error(message: str) -> int:
    print(f"tether: error: {terminal_safe(message)}", file=sys.stderr)
    return 2


def _at_least_one(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def _positive(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not number > 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return number


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tether worker",
        description="Autonomous workers: each claims the next ready task of the team's board, "
        "runs it in a fresh headless session, records the result, and claims the next.",
    )
    add_board_options(p)
    p.add_argument(
        "--count", type=_at_least_one, default=1, help="worker processes to run (default 1)"
    )
    p.add_argument(
        "--until-idle", action="store_true", help="exit once nothing is pending or running"
    )
    p.add_argument(
        "--worktrees",
        action="store_true",
        help="run each task in a git worktree of its own, on branch tether/<task>",
    )
    p.add_argument("--model", help="the model of the task sessions")
    p.add_argument(
        "--trust-workspace",
        action="store_true",
        help="run what this workspace's files declare (hooks, MCP servers, allow rules) in "
        "the task sessions, as -p does with it; TETHER_TRUST_WORKSPACE=1 does the same",
    )
    p.add_argument(
        "--lease",
        type=_positive,
        default=DEFAULT_LEASE_S,
        metavar="SECONDS",
        help=f"a claim's lease, renewed every third of it (default {DEFAULT_LEASE_S:g})",
    )
    p.add_argument("--cwd", type=Path, help="the project (default: here)")
    return p
