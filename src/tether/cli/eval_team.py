"""`tether eval SUITE --team NAME`: the runs posted on a team's board and collected back;
`tether eval worker`: a process that runs them, on any machine that reaches the store."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console

from tether.config.project import project_root
from tether.evals.results import EvalResults, RunResult
from tether.evals.suite import Suite, Variant
from tether.evals.team import EvalWorker, collect, post_runs, team_results
from tether.protocol import ConfigError
from tether.store.task_records import StoreUnavailable, TaskStoreError
from tether.store.task_store import DEFAULT_TEAM, TaskStore, open_task_store
from tether.teams.membership import STORE_ENV, TEAM_ENV


def open_board(
    team: str | None, store: str | None, *, existing: bool, kind: str
) -> tuple[str, TaskStore, Callable[[], None]]:
    """The team's store, from the flags, then TETHER_TEAM / TETHER_TEAM_STORE, then the
    project's own SQLite file (as `tether tasks` finds it); its changes told as `kind`'s
    (`cli.board_events`), and what closes those events (after the store)."""
    from tether.cli.board_events import observed_store, process_name

    name = team or os.environ.get(TEAM_ENV) or DEFAULT_TEAM
    url = store or os.environ.get(STORE_ENV)
    opened = open_task_store(url, project=Path.cwd(), team=name, existing=existing)
    try:
        start = Path.cwd()
        project = project_root(start, user_home=Path.home())
        observed, close = observed_store(
            opened, process_name(kind), project=project, env=os.environ, start=start
        )
    except ConfigError:
        opened.close()
        raise
    return name, observed, close


def run_on_team(
    suite: Suite,
    suite_file: Path,
    variants: list[Variant],
    repeat: int,
    team: str | None,
    store_url: str | None,
) -> EvalResults | None:
    """Post, wait for the workers, collect; None (said) when the store cannot be used."""
    started = datetime.now(UTC).isoformat(timespec="seconds")
    err = Console(stderr=True, highlight=False)
    try:
        name, store, close_events = open_board(team, store_url, existing=False, kind="eval")
    except (StoreUnavailable, TaskStoreError, ConfigError) as e:
        print(f"tether eval: {e}", file=sys.stderr)
        return None
    try:
        run_id, tasks = post_runs(store, suite, suite_file, variants, repeat)
        ids = ", ".join(f"#{t.id}" for t in tasks)
        err.print(
            f"posted {len(tasks)} run(s) on team {name!r} (tasks {ids}); waiting for "
            f"`tether eval worker --team {name}` to run them",
            markup=False,
        )

        def said(run: RunResult) -> None:
            outcome = "pass" if run.passed else ("error" if run.error else "fail")
            err.print(
                f"{run.variant} {run.case} #{run.repeat}: {outcome} ({run.where})", markup=False
            )

        runs = collect(store, run_id, tasks, name, on_done=said)
    except StoreUnavailable as e:
        print(f"tether eval: {e}", file=sys.stderr)
        return None
    finally:
        store.close()
        close_events()
    return team_results(suite, suite_file, variants, repeat, runs, started)


def worker_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="tether eval worker",
        description="Run the evaluation runs posted on a team's board (`tether eval SUITE "
        "--team NAME`), each as `tether eval` runs it locally, its result recorded on the board.",
    )
    parser.add_argument("--team", help=f"the team (default: {TEAM_ENV}, or {DEFAULT_TEAM})")
    parser.add_argument("--store", help=f"the board's store URL or file (default: {STORE_ENV})")
    parser.add_argument("--parallel", type=int, default=1, help="runs at once (default 1)")
    parser.add_argument("--out", type=Path, help="where transcripts go (default eval-runs/worker)")
    parser.add_argument(
        "--exit-when-idle", action="store_true", help="stop once nothing is left to claim"
    )
    args = parser.parse_args(argv)
    if args.parallel < 1:
        parser.error("--parallel must be 1 or more")
    try:
        _, store, close_events = open_board(
            args.team, args.store, existing=True, kind="eval-worker"
        )
    except (StoreUnavailable, TaskStoreError, ConfigError) as e:
        print(f"tether eval worker: {e}", file=sys.stderr)
        return 2
    from tether.cli.board_events import process_name

    out: Path = args.out or Path("eval-runs") / "worker"
    worker = EvalWorker(
        store,
        out.resolve(),
        parallel=args.parallel,
        exit_when_idle=args.exit_when_idle,
        say=lambda line: print(line, file=sys.stderr, flush=True),
        owner=process_name("eval-worker"),  # as `open_board` names this process's records
    )
    try:
        return asyncio.run(worker.run())
    except StoreUnavailable as e:
        print(f"tether eval worker: {e}", file=sys.stderr)
        return 2
    finally:
        store.close()
        close_events()
