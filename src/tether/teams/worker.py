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
    ToolFinished,
    ToolStarted,
    TurnFinished,
    UserInput,
)
from tether.store.task_records import Claim, LeaseLost, StoreUnavailable, Task, TaskStoreError
from tether.teams.branch_owner import task_owner
from tether.teams.completion import completion_refusal, refused_text, session_hooks
from tether.teams.git import GitError
from tether.teams.leftover import left_work
from tether.teams.lifecycle import Closed, task_worktree
from tether.teams.prompts import task_prompt
from tether.teams.records import RepositoryError, WorktreeBusy, WorktreeError, task_name
from tether.teams.store_calls import StoreCalls
from tether.teams.worker_ran import MAX_REFUSALS, Ran, WorkerOptions, every_call_denied
from tether.teams.worker_record import Recorder


def _quiet(done: asyncio.Future[bool]) -> None:
    if not done.cancelled():
        done.exception()


SessionMaker = Callable[[Path, Task], Session]
"""A fresh session for a task, working in the given directory (the project, or the task's
worktree)."""


@dataclass
class Worker:
    calls: StoreCalls
    options: WorkerOptions
    project: Path
    make_session: SessionMaker
    say: Callable[[str], None] = lambda _: None
    worktree_hooks: Callable[[], HookRunner | None] | None = None
    """The project's hooks, for WorktreeCreate and WorktreeRemove."""
    _stop: str | None = None
    _stopped: asyncio.Event = field(default_factory=asyncio.Event)
    _session: Session | None = None
    _lost: str | None = None
    _recorder: Recorder | None = None
    _branch: str | None = None
    held: str | None = None
    """The task this worker held when its store failed for good (damaged, lost, or down
    when stopped), as said to people: nothing was recorded for it."""

    @property
    def recorder(self) -> Recorder:
        if self._recorder is None:
            self._recorder = Recorder(self.calls, self.options, self.say)
        return self._recorder

    @property
    def done(self) -> list[str]:
        """Ids of the tasks this worker recorded (completed or failed), in order."""
        return self.recorder.done

    def stop(self, reason: str) -> None:
        """Claim nothing more; stop the running task's session (its task is given back)."""
        if self._stop is None:
            self._stop = reason
        self._stopped.set()
        self.calls.stop()
        if self._session is not None:
            self._session.interrupt_next_turn(reason)

    async def run(self) -> None:
        """Claim and work until stopped (or, with `until_idle`, until the board is idle)."""
        while self._stop is None:
            mark, claim = await self.calls.call(
                lambda s: (
                    s.change_mark(),
                    s.claim_next(self.options.owner, lease_s=self.options.lease_s),
                )
            )
            if claim is None:
                if self.options.until_idle and await self._idle():
                    return
                await self._board_changed(mark)
                continue
            await self._work_on(claim)
            if self.recorder.wait_s > 0:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.recorder.wait_s):
                        await self._stopped.wait()

    async def _board_changed(self, mark: str) -> None:
        """Wait for a change to the board after `mark` (a task added, completed, given
        back...: the store's outbox, blocked on), at most `idle_wait_s`, or for `stop()`."""
        most = self.options.idle_wait_s
        changed = asyncio.ensure_future(self.calls.call(lambda s: s.wait_change(mark, most)))
        stopped = asyncio.ensure_future(self._stopped.wait())
        try:
            await asyncio.wait({changed, stopped}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopped.cancel()
        if not changed.done():
            changed.add_done_callback(_quiet)  # returns within `most`; the worker is stopping
            return
        changed.result()  # a store that failed for good raises here, as a claim would

    async def _idle(self) -> bool:
        tasks = await self.calls.call(lambda s: s.list())
        return not any(t.status in ("pending", "in_progress") for t in tasks)

    async def _work_on(self, claim: Claim) -> None:
        task = claim.task
        self.say(f"claimed #{task.id} ({task.subject}), attempt {task.attempts}")
        self._lost = None
        keeper = asyncio.create_task(self._keep_lease(claim))
        self._branch = None
        try:
            ran = await self._run(claim, task)
        except StoreUnavailable:
            self._held(task)  # damaged, lost, or down after a stop: nothing more to ask it
            raise
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
        try:
            await self.recorder.record(
                claim, ran, lost=self._lost, giving_back=self._giving_back(ran), stop=self._stop
            )
        except StoreUnavailable:
            self._held(task)
            raise

    def _held(self, task: Task) -> None:
        kept = f", its work committed on {self._branch}" if self._branch else ""
        self.held = f"task #{task.id} ({task.subject}){kept}"

    async def _run(self, claim: Claim, task: Task) -> Ran:
        inputs = await self._dependency_results(task)
        owner = task_owner(task_name(self.options.team, task.id), task.created_at)
        if not (self.options.worktrees or task.metadata.get("isolation") == "worktree"):
            name = task_name(self.options.team, task.id)
            left = await asyncio.to_thread(left_work, self.project, name, owner)
            if left is None:
                return await self._session_run(self.project, claim, inputs, None)
            self.say(f"#{task.id}: {left.said(task.id)}")
        ran: Ran | None = None
        try:
            async with task_worktree(
                self.project,
                task.id,
                team=self.options.team,
                fence=claim.fence,
                hooks=self._hooks(),
                owner=owner,
                on_close=self._worktree_closed,
            ) as worktree_run:
                worktree_run.commit_message = f"tether task {task.id}: {task.subject}"
                branch = self._branch = worktree_run.worktree.branch
                for warning in worktree_run.worktree.warnings:
                    self.say(f"preparing #{task.id}: warning: {warning}")  # may be of others
                ran = await self._session_run(worktree_run.worktree.path, claim, inputs, branch)
                ran.branch = branch
                ran.warnings = worktree_run.worktree.warnings
                worktree_run.stopped = self._lost is not None or self._giving_back(ran)
        except RepositoryError:
            raise  # every task would meet it: the worker stops, the task goes back untouched
        except WorktreeBusy as e:
            return Ran(busy=str(e))
        except (WorktreeError, GitError) as e:
            if ran is None:  # before its session ran: the worktree could not be made
                return Ran(error=f"its worktree: {e}")
            ran.unclosed = str(e)  # it ran; what failed is the closing (commit, removal)
            return ran
        ran.closed = worktree_run.closed
        return ran

    def _worktree_closed(self, closed: Closed) -> None:
        if not closed.branch_kept:
            self._branch = None  # nothing of the task's on it: deleted

    def _gave_up(self, ran: Ran) -> bool:
        """Stopped before the session finished: the task goes back to the board."""
        return self._stop is not None and (ran.finished is None or ran.finished.is_error)

    def _giving_back(self, ran: Ran) -> bool:
        """The task goes back to the board, the attempt not counted: stopped before the
        session finished (or with its completion refused), or the model endpoint failed."""
        refused_at_stop = self._stop is not None and ran.refused is not None
        busy = ran.busy is not None
        return self._gave_up(ran) or ran.model_down or refused_at_stop or busy

    def _hooks(self) -> HookRunner | None:
        return self.worktree_hooks() if self.worktree_hooks is not None else None

    async def _session_run(
        self, cwd: Path, claim: Claim, inputs: list[Task], branch: str | None
    ) -> Ran:
        task = claim.task
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
                prompt = await self._gate(session, claim, ran)
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

    async def _gate(self, session: Session, claim: Claim, ran: Ran) -> str | None:
        """After a turn that finished: None when there is nothing more to ask of the session
        (the task is to be recorded, or it recorded the task itself); else the prompt that
        tells it the TaskCompleted hooks refused its completion, and why."""
        task = claim.task
        ran.refused = None
        finished = ran.finished
        if finished is None or finished.is_error or self._lost:
            return None
        try:
            ran.recorded = await self.recorder.finished_under(claim)
        except StoreUnavailable:
            return None  # damaged, lost, or down after a stop: recording says so, and raises
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
                if await self.recorder.finished_under(claim) is not None:
                    return  # its session completed or failed the task through the claim
                self._lost = str(e)
                if self._session is not None:
                    self._session.interrupt_next_turn(f"lease lost: {e}")
                return
            except StoreUnavailable as e:
                # Damaged, lost, or down after a stop: the session ends (its work is kept
                # in the worktree's commit), and recording it raises the same to the caller.
                if self._session is not None:
                    self._session.interrupt_next_turn(f"the task store failed: {e}")
                return
