"""What a worker knows of one task's run: its options, how the session ended (`Ran`), and
the judgements made from that (every call denied)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tether.models.idle import IDLE_TIMEOUT_ENV
from tether.protocol import PermissionDenial, TurnFinished
from tether.store.task_records import DEFAULT_LEASE_S
from tether.teams.lifecycle import Closed
from tether.teams.records import DEFAULT_TEAM

IDLE_WAIT_S = 1.0
"""An idle worker waits for the board to change (its outbox: a task added, completed, given
back...) and claims again at once when it does; it also looks again after this long, for
changes that write no event (a store written without `keep_events`) and expired leases."""

MODEL_BACKOFF_S = (1.0, 60.0)
"""After a task given back because the model endpoint failed, the wait before the next claim:
the first, doubling to the second while the endpoint keeps failing."""

MAX_STALLS = 3
"""Times the model may stall on a task (its idle timeout), each time given back uncounted,
before the task is recorded failed with the reason: a task the model always hangs on must
not go round the board for ever. An endpoint that cannot be reached is not counted: that is
no task's doing."""

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
    idle_wait_s: float = IDLE_WAIT_S
    model_backoff_s: tuple[float, float] = MODEL_BACKOFF_S


@dataclass
class Ran:
    """How one task's session ended."""

    finished: TurnFinished | None = None
    session_id: str | None = None
    cost_usd: float = 0.0
    error: str | None = None
    """The task could not run (its worktree could not be made...)."""
    unclosed: str | None = None
    """The task ran, but its worktree could not be closed (its work committed, the worktree
    removed): git's error."""
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
    busy: str | None = None
    """The task's worktree is held by a live run of another task of the same id (an earlier
    board's): the task goes back, uncounted, until that run ends."""

    @property
    def model_stalled(self) -> bool:
        """The turn failed because the model stalled (reached, it sent nothing more until
        the idle timeout), not because the endpoint could not be reached."""
        return self.model_down and IDLE_TIMEOUT_ENV in (self.model_failing or "")

    @property
    def model_down(self) -> bool:
        """The turn failed because the model endpoint did (unreachable, 5xx after retries)."""
        return (
            self.model_failing is not None
            and self.finished is not None
            and (self.finished.is_error)
        )


def first_line(text: str, limit: int = 200) -> str:
    """Why a task failed, in one line of the worker's output (`tasks show` has all of it)."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def every_call_denied(ran: Ran) -> bool:
    """The session tried tools and every call was denied: it did nothing it set out to."""
    denied = {d.tool_use_id for d in ran.denials}
    return bool(ran.calls | denied) and (ran.calls | denied) <= denied
