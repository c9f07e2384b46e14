"""Evaluations on a team's board: each run of a case posted as a task whose metadata carries
everything a worker needs (the suite's settings, the case, the variant), run by
`tether eval worker` on any machine that reaches the store, its `RunResult` recorded as the
task's result and collected back into one report."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from tether.evals.results import EvalResults, RunResult
from tether.evals.runner import EvalRunner, Planned, plan_runs
from tether.evals.suite import Case, Suite, Variant
from tether.store.task_records import Claim, LeaseLost, NewTask, Task
from tether.store.task_store import TaskStore
from tether.teams.board import lent_value
from tether.teams.membership import CLAIM_ENV, CLAIM_TEAM_ENV, OWNER_ENV

META = "tether_eval"
"""The metadata key of an evaluation's task."""
LEASE_S = 60.0
POLL_S = 0.25

T = TypeVar("T")


class NotAnEvalTask(Exception):
    """A task on the board that is no evaluation run (another worker's work)."""


def post_runs(
    store: TaskStore, suite: Suite, suite_file: Path, variants: list[Variant], repeat: int
) -> tuple[str, list[Task]]:
    """Every run posted as a task; the evaluation's id and the tasks."""
    run_id = uuid.uuid4().hex[:12]
    settings = suite.model_dump(mode="json", exclude={"cases", "variants"})
    suite_dir = str(suite_file.resolve().parent)
    tasks: list[Task] = []
    for planned in plan_runs(suite, variants, repeat):
        body: dict[str, Any] = {
            "run": run_id,
            "suite": settings,
            "suite_dir": suite_dir,
            "case": planned.case.model_dump(mode="json"),
            "variant": planned.variant.model_dump(mode="json"),
            "repeat": planned.repeat,
        }
        subject = (
            f"eval {suite.name}: {planned.case.id} [{planned.variant.label}] #{planned.repeat}"
        )
        tasks.append(
            store.create(
                NewTask(subject=subject, description=planned.case.prompt, metadata={META: body})
            )
        )
    return run_id, tasks


def collect(
    store: TaskStore,
    run_id: str,
    tasks: list[Task],
    team: str,
    on_done: Callable[[RunResult], None] | None = None,
    poll_s: float = POLL_S,
) -> list[RunResult]:
    """Each posted run's result once a worker has recorded it (waits for all of them)."""
    wanted = {t.id: t for t in tasks}
    done: dict[str, RunResult] = {}
    while len(done) < len(wanted):
        for task in store.list():
            if task.id not in wanted or task.id in done:
                continue
            if task.status in ("completed", "failed", "blocked"):
                result = task_result(task, team)
                done[task.id] = result
                if on_done is not None:
                    on_done(result)
        if len(done) < len(wanted):
            time.sleep(poll_s)
    return [done[t.id] for t in tasks]


def task_result(task: Task, team: str) -> RunResult:
    body = task.metadata[META]
    where = f"team {team} task #{task.id}" + (f" by {task.owner}" if task.owner else "")
    if task.status == "completed" and task.result:
        try:
            result = RunResult.model_validate_json(task.result)
        except ValidationError:
            pass
        else:
            result.where = where
            return result
    variant = Variant.model_validate(body["variant"])
    return RunResult(
        case=str(body["case"]["id"]),
        variant=variant.label,
        model=variant.model,
        repeat=int(body["repeat"]),
        passed=False,
        error=f"the worker recorded no result: {task.error or task.blocked_reason or task.result}",
        where=where,
    )


def team_results(
    suite: Suite,
    suite_file: Path,
    variants: list[Variant],
    repeat: int,
    runs: list[RunResult],
    started: str,
) -> EvalResults:
    return EvalResults(
        suite=suite.name,
        suite_file=str(suite_file),
        started=started,
        finished=datetime.now(UTC).isoformat(timespec="seconds"),
        variants=[v.label for v in variants],
        repeat=repeat,
        parallel=0,
        runs=runs,
    )


def planned_from(task: Task) -> tuple[Suite, Path, Planned]:
    """What a worker runs for an evaluation's task; `NotAnEvalTask` for any other task."""
    body = task.metadata.get(META)
    if not isinstance(body, dict):
        raise NotAnEvalTask(
            f"task #{task.id} ({task.subject!r}) is not an evaluation run: evaluations need a "
            "team of their own, which plain workers do not serve"
        )
    case = Case.model_validate(body["case"])  # type: ignore[index]
    suite = Suite.model_validate({**body["suite"], "cases": [body["case"]]})  # type: ignore[index,dict-item]
    variant = Variant.model_validate(body["variant"])  # type: ignore[index]
    return suite, Path(str(body["suite_dir"])), Planned(case, variant, int(body["repeat"]))  # type: ignore[index]


class EvalWorker:
    """Claims the board's evaluation runs, `parallel` at once, until stopped (or, with
    `exit_when_idle`, until nothing is left to claim and nothing runs)."""

    def __init__(
        self,
        store: TaskStore,
        out: Path,
        *,
        parallel: int = 1,
        exit_when_idle: bool = False,
        say: Callable[[str], None] = print,
        owner: str,
    ) -> None:
        self.store = store
        self.out = out
        self.parallel = parallel
        self.exit_when_idle = exit_when_idle
        self.say = say
        # The name it claims tasks by and its runs' sessions carry: the board's name for this
        # process (`cli.board_events.process_name`), so the board's records and the runs'
        # events name one agent.
        self.owner = owner
        # One thread for every store call: a SQLite connection stays on its thread.
        self._calls = ThreadPoolExecutor(max_workers=1, thread_name_prefix="eval-store")
        self.problem: str | None = None

    async def _store(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._calls, lambda: fn(*args, **kwargs))

    async def run(self) -> int:
        scratch = Path(tempfile.mkdtemp(prefix="tether-eval-worker-"))
        try:
            slots = [asyncio.create_task(self._slot(scratch)) for _ in range(self.parallel)]
            await asyncio.gather(*slots)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
            self._calls.shutdown(wait=True)
        return 2 if self.problem else 0

    async def _slot(self, scratch: Path) -> None:
        while self.problem is None:
            claim = await self._store(self.store.claim_next, self.owner, lease_s=LEASE_S)
            if claim is None:
                if self.exit_when_idle:
                    return
                await asyncio.sleep(POLL_S)
                continue
            await self._run(claim, scratch)

    async def _run(self, claim: Claim, scratch: Path) -> None:
        try:
            suite, suite_dir, planned = planned_from(claim.task)
        except NotAnEvalTask as e:
            await self._store(self.store.release, claim)
            self.problem = str(e)
            self.say(f"tether eval worker: {e}")
            return
        except (ValidationError, KeyError, TypeError, ValueError) as e:
            await self._store(self.store.fail, claim, f"not a readable evaluation run: {e}")
            return
        self.say(f"{self.owner}: task #{claim.task_id} {claim.task.subject}")
        # The case's sessions are this worker's work on the task, as any worker's task session
        # (`cli/worker_session.py`): its agent id, and the claim (the task id of their events and
        # spend, under its team). No board: the task tools would change what the case measures.
        whose = {
            OWNER_ENV: self.owner,
            CLAIM_ENV: lent_value(claim.task),
            CLAIM_TEAM_ENV: self.store.team,
        }
        runner = EvalRunner(suite, suite_dir, self.out, suite_dir=suite_dir, env=whose)
        renewing = asyncio.create_task(self._renew(claim))
        try:
            result = await runner.run_one(planned, scratch)
        finally:
            renewing.cancel()
        result.where = self.owner
        spent = result.cost_usd + (result.judge.cost_usd if result.judge else 0.0)
        try:
            await self._store(self.store.complete, claim, result.model_dump_json(), cost_usd=spent)
        except LeaseLost as e:
            self.say(f"{self.owner}: task #{claim.task_id}: not recorded: {e}")

    async def _renew(self, claim: Claim) -> None:
        while True:
            await asyncio.sleep(LEASE_S / 3)
            try:
                claim = await self._store(self.store.heartbeat, claim, lease_s=LEASE_S)
            except LeaseLost:
                return  # the completion says so
