"""What a worker records on the board once a task's session has ended: the result (completed
or failed, through the fence), the task given back (uncounted) with the wait before the next
claim, and the run's note (its session, its worktree's outcome). The run's spend is already
on the task: its session adds each model call's as it ends (`tether.teams.spend`)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field

from tether.store.task_graph import TaskChanges
from tether.store.task_records import Claim, LeaseLost, StoreUnavailable, TaskStoreError
from tether.teams.prompts import Outcome, task_result
from tether.teams.store_calls import StoreCalls
from tether.teams.worker_ran import (
    MAX_STALLS,
    Ran,
    WorkerOptions,
    every_call_denied,
    first_line,
)

STALLS_KEY = "model_stalls"
"""In a task's metadata: times the model stalled on it, each attempt given back uncounted."""


def _stalls(claim: Claim) -> int:
    value = claim.task.metadata.get(STALLS_KEY, 0)
    return value if isinstance(value, int) else 0


@dataclass
class Recorder:
    calls: StoreCalls
    options: WorkerOptions
    say: Callable[[str], None]
    done: list[str] = field(default_factory=list[str])
    """Ids of the tasks this worker recorded (completed or failed), in order."""
    wait_s: float = 0.0
    """How long to wait before the next claim (the model endpoint failing, a busy worktree)."""

    async def record(
        self, claim: Claim, ran: Ran, *, lost: str | None, giving_back: bool, stop: str | None
    ) -> None:
        task_id = claim.task_id
        if lost is not None:
            self.say(f"dropped #{task_id}: {lost}")
            return
        if ran.recorded is not None:
            await self.note_run(claim, ran)
            self.done.append(task_id)
            self.say(f"{ran.recorded} #{task_id} (by its session) (${ran.cost_usd:.4f})")
            return
        ok = False
        text = ""
        try:
            stalls = _stalls(claim) + 1 if ran.model_stalled and stop is None else 0
            if giving_back and stalls < MAX_STALLS:
                if stalls:
                    changes = TaskChanges(metadata={STALLS_KEY: stalls})
                    await self.calls.call(lambda s: s.update(task_id, changes))
                await self.calls.call(lambda s: s.release(claim))
                self.gave_back(task_id, ran, stop)
                return
            if giving_back:  # the model stalled on it every time: failed, saying so
                text = (
                    f"the model stalled on this task {stalls} times (each attempt given back, "
                    f"uncounted): {ran.model_failing}"
                )
                await self.calls.call(lambda s: s.fail(claim, text))
                self.done.append(task_id)
                self.say(f"failed #{task_id} (${ran.cost_usd:.4f}): {first_line(text)}")
                return
            self.wait_s = 0.0
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
                    unclosed=ran.unclosed,
                ),
            )
            try:
                if ok:
                    await self.calls.call(lambda s: s.complete(claim, text))
                else:
                    await self.calls.call(lambda s: s.fail(claim, text))
            except StoreUnavailable:  # damaged or lost: the caller stops; the result is said
                self.say(f"#{task_id}'s result, not recorded: {text}")
                raise
        except LeaseLost as e:
            recorded = await self.finished_under(claim)
            if recorded is None:
                kept = f"; its result, not recorded: {text}" if text else ""
                self.say(f"dropped #{task_id}: {e}{kept}")
                return
            ok = recorded == "completed"
        with contextlib.suppress(TaskStoreError):  # the task gone since: nothing to note on
            await self.note_run(claim, ran)
        self.done.append(task_id)
        why = f": {first_line(text)}" if not ok and text else ""
        self.say(f"{'completed' if ok else 'failed'} #{task_id} (${ran.cost_usd:.4f}){why}")

    async def note_run(self, claim: Claim, ran: Ran) -> None:
        """The session (to resume it) and the worktree's outcome, in the task's metadata, once
        the task is recorded as this worker's (never on a task another worker holds now)."""

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

    def gave_back(self, task_id: str, ran: Ran, stop: str | None) -> None:
        if ran.busy is None and not ran.model_down:
            kept = ran.branch is not None and (ran.closed is None or ran.closed.branch_kept)
            work = f"; its work so far is committed on {ran.branch}" if kept else ""
            self.say(f"gave #{task_id} back to the board ({stop}){work}")
            return
        first, most = self.options.model_backoff_s
        self.wait_s = min(self.wait_s * 2, most) if self.wait_s else first
        why = (
            f"its worktree: {ran.busy}"
            if ran.busy is not None
            else f"the model endpoint failed: {ran.model_failing}"
        )
        self.say(
            f"gave #{task_id} back to the board (attempt not counted): {why}; waiting "
            f"{self.wait_s:g} s before the next claim"
        )

    async def finished_under(self, claim: Claim) -> str | None:
        """The status of the claim's task finished under the claim (its fence, the same task):
        a completion whose answer was lost in an outage and then tried again (it was
        recorded, once), or the session's own. None when not (or when the task is gone)."""
        try:
            task = await self.calls.call(lambda s: s.get(claim.task_id))
        except TaskStoreError:
            return None
        same = task.fence == claim.fence and task.created_at == claim.task.created_at
        if task.status in ("completed", "failed") and same:
            return task.status
        return None
