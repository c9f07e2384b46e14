"""An autonomous worker: claims the next ready task of its team's board, runs it in a fresh
session of its own, records the result, and claims the next.

The session is an ordinary one (tools, rules, hooks, sandbox, a saved transcript), built by
whoever runs the worker (`make_session`); the worker only feeds it the task and reads its
events, as a front end does. While the session works, the claim's lease is renewed every
third of its length; a lease found lost stops the session and the task is dropped (another
worker may hold it now, and the fence would refuse a completion anyway). `stop()` (Ctrl+C,
SIGTERM) stops the session and gives the task back (`release`: the attempt is not counted);
a task the session finished first is recorded as usual.

Every completion passes the `TaskCompleted` hooks (`tether.teams.completion`), the worker's
as the agent's: a refusal goes back to the session as its next prompt, and a task refused
`MAX_REFUSALS` times is recorded failed with the hook's last reason. A model
endpoint that cannot be reached gives the task back (the attempt not counted) and the worker
waits, doubling, before it claims again, instead of failing the board's tasks one by one.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tether.core.session import Session
from tether.hooks import HookRunner
from tether.protocol import (
    MessageCompleted,
    ModelRetry,
    PermissionDenial,
    ToolFinished,
    ToolStarted,
    TurnFinished,
    UserInput,
)
from tether.store.task_records import DEFAULT_LEASE_S, Claim, LeaseLost, Task, TaskStoreError
from tether.teams.branch_owner import task_owner
from tether.teams.completion import completion_refusal, refused_text, session_hooks
from tether.teams.git import GitError
from tether.teams.lifecycle import Closed, task_worktree
from tether.teams.prompts import Outcome, task_prompt, task_result
from tether.teams.records import DEFAULT_TEAM, RepositoryError, WorktreeError, task_name
from tether.teams.store_calls import StoreCalls

SessionMaker = Callable[[Path, Task], Session]
"""A fresh session for a task, working in the given directory (the project, or the task's
worktree)."""

IDLE_POLL_S = (0.05, 1.0)
"""An idle worker looks at the board again after the first delay, doubling to the second:
a task that becomes ready (its dependencies done) is taken within tens of milliseconds,
and a board with nothing to do costs a read a second."""

MODEL_BACKOFF_S = (1.0, 60.0)
"""After a task given back because the model endpoint failed, the wait before the next claim:
the first, doubling to the second while the endpoint keeps failing."""

MAX_REFUSALS = 3
"""TaskCompleted refusals a task gets before it is recorded failed (the hook runs this often)."""


@dataclass(frozen=True)
class WorkerOptions:
    owner: str
    """The name claims are taken under (unique per process: `worker-PID@HOST`)."""
    team: str = DEFAULT_TEAM
    """The board's team: its tasks' worktrees and branches are named by it."""
    lease_s: float = DEFAULT_LEASE_S
    until_idle: bool = False
    """Stop once nothing is pending or running (otherwise wait for new tasks)."""
    worktrees: bool = False
    """Run every task in a worktree of its own (a task's `isolation: worktree` asks alone)."""
    idle_poll_s: tuple[float, float] = IDLE_POLL_S
    model_backoff_s: tuple[float, float] = MODEL_BACKOFF_S


@dataclass
class Ran:
    """How one task's session ended."""

    finished: TurnFinished | None = None
    session_id: str | None = None
    cost_usd: float = 0.0
    error: str | None = None
    """The task could not run (its worktree could not be made...)."""
    branch: str | None = None
    """The task's branch, when it ran in a worktree."""
    closed: Closed | None = None
    warnings: tuple[str, ...] = ()
    """The worktree's pre-flight warnings (uncommitted changes left in the main tree...)."""
    calls: set[str] = field(default_factory=set[str])
    """Ids of the tool calls the session made."""
    model_failing: str | None = None
    """The model endpoint's last failure, while no answer came after it."""
    refused: str | None = None
    """Why the TaskCompleted hooks refused the completion (the last time)."""
    recorded: str | None = None
    """The status the session recorded on its task itself (TaskUpdate through the claim)."""
    denials: list[PermissionDenial] = field(default_factory=list[PermissionDenial])
    """Calls denied, over every turn of the session."""

    @property
    def model_down(self) -> bool:
        """The turn failed because the model endpoint did (unreachable, 5xx after retries)."""
        return (
            self.model_failing is not None
            and self.finished is not None
            and (self.finished.is_error)
        )


@dataclass
class Worker:
    calls: StoreCalls
    options: WorkerOptions
    project: Path
    make_session: SessionMaker
    say: Callable[[str], None] = lambda _: None
    worktree_hooks: Callable[[], HookRunner | None] | None = None
    """The project's hooks, for WorktreeCreate and WorktreeRemove."""
    done: list[str] = field(default_factory=list[str])
    """Ids of the tasks this worker recorded (completed or failed), in order."""
    _stop: str | None = None
    _stopped: asyncio.Event = field(default_factory=asyncio.Event)
    _session: Session | None = None
    _lost: str | None = None
    _model_wait: float = 0.0

    def stop(self, reason: str) -> None:
        """Claim nothing more; stop the running task's session (its task is given back)."""
        if self._stop is None:
            self._stop = reason
        self._stopped.set()
        if self._session is not None:
            self._session.interrupt_next_turn(reason)

    async def run(self) -> None:
        """Claim and work until stopped (or, with `until_idle`, until the board is idle)."""
        first, most = self.options.idle_poll_s
        wait = first
        while self._stop is None:
            claim = await self.calls.call(
                lambda s: s.claim_next(self.options.owner, lease_s=self.options.lease_s)
            )
            if claim is None:
                if self.options.until_idle and await self._idle():
                    return
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(wait):
                        await self._stopped.wait()
                wait = min(wait * 2, most)
                continue
            wait = first
            await self._work_on(claim)
            if self._model_wait > 0:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self._model_wait):
                        await self._stopped.wait()

    async def _idle(self) -> bool:
        tasks = await self.calls.call(lambda s: s.list())
        return not any(t.status in ("pending", "in_progress") for t in tasks)

    async def _work_on(self, claim: Claim) -> None:
        task = claim.task
        self.say(f"claimed #{task.id} ({task.subject}), attempt {task.attempts}")
        self._lost = None
        keeper = asyncio.create_task(self._keep_lease(claim))
        try:
            ran = await self._run(claim, task)
        except Exception:
            # The session could not be built (broken settings, no key), or the repository
            # cannot hold worktrees: every task would meet the same, so the worker stops, and
            # this one goes back untouched.
            with contextlib.suppress(LeaseLost):
                await self.calls.call(lambda s: s.release(claim))
            raise
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
        await self._record(claim, ran)

    async def _run(self, claim: Claim, task: Task) -> Ran:
        inputs = await self._dependency_results(task)
        if not (self.options.worktrees or task.metadata.get("isolation") == "worktree"):
            return await self._session_run(self.project, task, inputs, None)
        try:
            owner = task_owner(task_name(self.options.team, task.id), task.created_at)
            async with task_worktree(
                self.project,
                task.id,
                team=self.options.team,
                fence=claim.fence,
                hooks=self._hooks(),
                owner=owner,
            ) as worktree_run:
                worktree_run.commit_message = f"tether task {task.id}: {task.subject}"
                branch = worktree_run.worktree.branch
                for warning in worktree_run.worktree.warnings:
                    self.say(f"#{task.id}: warning: {warning}")
                ran = await self._session_run(worktree_run.worktree.path, task, inputs, branch)
                ran.branch = branch
                ran.warnings = worktree_run.worktree.warnings
                worktree_run.stopped = self._lost is not None or self._giving_back(ran)
        except RepositoryError:
            raise  # every task would meet it: the worker stops, the task goes back untouched
        except (WorktreeError, GitError) as e:
            return Ran(error=f"its worktree: {e}")
        ran.closed = worktree_run.closed
        return ran

    def _gave_up(self, ran: Ran) -> bool:
        """Stopped before the session finished: the task goes back to the board."""
        return self._stop is not None and (ran.finished is None or ran.finished.is_error)

    def _giving_back(self, ran: Ran) -> bool:
        """The task goes back to the board, the attempt not counted: stopped before the
        session finished (or with its completion refused), or the model endpoint failed."""
        refused_at_stop = self._stop is not None and ran.refused is not None
        return self._gave_up(ran) or ran.model_down or refused_at_stop

    def _hooks(self) -> HookRunner | None:
        return self.worktree_hooks() if self.worktree_hooks is not None else None

    async def _session_run(
        self, cwd: Path, task: Task, inputs: list[Task], branch: str | None
    ) -> Ran:
        session = self.make_session(cwd, task)
        self._session = session
        ran = Ran(session_id=session.session_id)
        if self._stop is not None:
            session.interrupt_next_turn(self._stop)
        try:
            await session.prepare()
            prompt: str | None = task_prompt(task, inputs, branch=branch)
            for _ in range(MAX_REFUSALS):
                if prompt is None:
                    break
                await self._turn(session, prompt, ran)
                prompt = await self._gate(session, task, ran)
        finally:
            self._session = None
            await session.aclose()
            ran.cost_usd = session.cost_usd
        return ran

    async def _turn(self, session: Session, prompt: str, ran: Ran) -> None:
        async for event in session.submit(UserInput(text=prompt)):
            if isinstance(event, TurnFinished):
                ran.finished = event
                ran.denials.extend(event.permission_denials)
            elif isinstance(event, ToolStarted | ToolFinished):
                ran.calls.add(event.call_id)
            elif isinstance(event, ModelRetry):
                ran.model_failing = event.reason
            elif isinstance(event, MessageCompleted) and event.message.role == "assistant":
                ran.model_failing = None

    async def _gate(self, session: Session, task: Task, ran: Ran) -> str | None:
        """After a turn that finished: None when there is nothing more to ask of the session
        (the task is to be recorded, or it recorded the task itself); else the prompt that
        tells it the TaskCompleted hooks refused its completion, and why."""
        ran.refused = None
        finished = ran.finished
        if finished is None or finished.is_error or self._lost:
            return None
        ran.recorded = await self._finished_under(task.id, task.fence)
        if ran.recorded is not None or every_call_denied(ran):
            return None
        hooks = session_hooks(session)
        owner, team = self.options.owner, self.calls.store.team
        ran.refused = await completion_refusal(hooks, task, owner=owner, team=team)
        if ran.refused is None:
            return None
        self.say(refused_text(task.id, ran.refused))
        if self._stop is not None:
            return None  # no more turns: the task goes back to the board
        return (
            f"{refused_text(task.id, ran.refused)}\n\nThe task is not recorded as done. Deal "
            "with what the hook says, then answer again with a short report of what you did."
        )

    async def _dependency_results(self, task: Task) -> list[Task]:
        found: list[Task] = []
        for dep in task.depends_on:
            with contextlib.suppress(TaskStoreError):  # gone from the store since: left out
                found.append(await self.calls.call(lambda s, d=dep: s.get(d)))
        return found

    async def _keep_lease(self, claim: Claim) -> None:
        """Renew the lease every third of its length; a lost lease stops the session."""
        while True:
            await asyncio.sleep(self.options.lease_s / 3)
            try:
                claim = await self.calls.call(
                    lambda s, c=claim: s.heartbeat(c, lease_s=self.options.lease_s)
                )
            except LeaseLost as e:
                if await self._finished_under(claim.task_id, claim.fence) is not None:
                    return  # its session completed or failed the task through the claim
                self._lost = str(e)
                if self._session is not None:
                    self._session.interrupt_next_turn(f"lease lost: {e}")
                return

    async def _record(self, claim: Claim, ran: Ran) -> None:
        task_id = claim.task_id
        if self._lost is not None:
            await self._keep_spend(task_id, ran)
            self.say(f"dropped #{task_id}: {self._lost}")
            return
        if ran.recorded is not None:
            await self._note_run(claim, ran)
            self.done.append(task_id)
            self.say(f"{ran.recorded} #{task_id} (by its session) (${ran.cost_usd:.4f})")
            return
        ok = False
        text = ""
        try:
            if self._giving_back(ran):
                await self.calls.call(lambda s: s.release(claim, cost_usd=ran.cost_usd))
                self._gave_back(task_id, ran)
                return
            self._model_wait = 0.0
            text, ok = task_result(
                ran.finished,
                ran.error,
                Outcome(
                    closed=ran.closed,
                    branch=ran.branch,
                    warnings=ran.warnings,
                    denials=tuple(ran.denials),
                    all_denied=every_call_denied(ran),
                    refused=ran.refused,
                ),
            )
            if ok:
                await self.calls.call(lambda s: s.complete(claim, text, cost_usd=ran.cost_usd))
            else:
                await self.calls.call(lambda s: s.fail(claim, text, cost_usd=ran.cost_usd))
        except LeaseLost as e:
            recorded = await self._finished_under(claim.task_id, claim.fence)
            if recorded is None:
                await self._keep_spend(task_id, ran)
                kept = f"; its result, not recorded: {text}" if text else ""
                self.say(f"dropped #{task_id}: {e}{kept}")
                return
            ok = recorded == "completed"
        with contextlib.suppress(TaskStoreError):  # the task gone since: nothing to note on
            await self._note_run(claim, ran)
        self.done.append(task_id)
        why = f": {_first_line(text)}" if not ok and text else ""
        self.say(f"{'completed' if ok else 'failed'} #{task_id} (${ran.cost_usd:.4f}){why}")

    async def _keep_spend(self, task_id: str, ran: Ran) -> None:
        """A dropped run's spend stays on the task (the store fences its result, not its cost)."""
        from tether.store.task_graph import TaskChanges

        if ran.cost_usd > 0:
            changes = TaskChanges(add_cost_usd=ran.cost_usd)
            with contextlib.suppress(TaskStoreError):  # the task gone since
                await self.calls.call(lambda s: s.update(task_id, changes))

    async def _note_run(self, claim: Claim, ran: Ran) -> None:
        """The session (to resume it) and the worktree's outcome, in the task's metadata, once
        the task is recorded as this worker's (never on a task another worker holds now)."""
        from tether.store.task_graph import TaskChanges

        note: dict[str, object] = {"session_id": ran.session_id, "worker": claim.owner}
        if ran.closed is not None:
            note["worktree"] = {
                "branch": ran.branch if ran.closed.branch_kept else None,
                "commit": ran.closed.commit,
                "overlaps": [o.describe() for o in ran.closed.overlaps],
                "warnings": list(ran.warnings),
            }
        changes = TaskChanges(metadata={"run": note})
        await self.calls.call(lambda s: s.update(claim.task_id, changes))

    def _gave_back(self, task_id: str, ran: Ran) -> None:
        if not ran.model_down:
            self.say(f"gave #{task_id} back to the board ({self._stop})")
            return
        first, most = self.options.model_backoff_s
        self._model_wait = min(self._model_wait * 2, most) if self._model_wait else first
        self.say(
            f"gave #{task_id} back to the board (attempt not counted): the model endpoint "
            f"failed: {ran.model_failing}; waiting {self._model_wait:g} s before the next claim"
        )

    async def _finished_under(self, task_id: str, fence: int) -> str | None:
        """The status of a task finished under the claim with this fence: a completion whose
        answer was lost in an outage and then tried again (it was recorded, once), or the
        session's own. None when not (or when the task is gone from the store)."""
        try:
            task = await self.calls.call(lambda s: s.get(task_id))
        except TaskStoreError:
            return None
        if task.status in ("completed", "failed") and task.fence == fence:
            return task.status
        return None


def _first_line(text: str, limit: int = 200) -> str:
    """Why a task failed, in one line of the worker's output (`tasks show` has all of it)."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def every_call_denied(ran: Ran) -> bool:
    """The session tried tools and every call was denied: it did nothing it set out to."""
    denied = {d.tool_use_id for d in ran.denials}
    return bool(ran.calls | denied) and (ran.calls | denied) <= denied
