"""Which team and store an agent or a command works on, and a session's hold on its tasks.

The store comes from `--store URL`, then `TETHER_TEAM_STORE`, then the `teams.store` setting,
then the project's own SQLite file; the team from `--team`, then `TETHER_TEAM`, then
`teams.team`, then `default`. A session's `TaskBoard` opens the store on first use (start-up
pays nothing), keeps the claims its agent took, renews their leases while it lives, and gives
them back when it ends.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from tether.protocol import ConfigError, Record
from tether.store.task_records import DEFAULT_LEASE_S, Claim, LeaseLost, Task
from tether.store.task_store import TaskStore, open_task_store
from tether.teams.membership import CLAIM_ENV, LEASE_ENV, TeamChoice
from tether.teams.task_events import ObservedTasks

T = TypeVar("T")


def lent_value(task: Task) -> str:
    """`CLAIM_ENV`'s value for the claim held on `task` (as claimed: its fence is the claim's)."""
    return f"{task.id}@{task.fence}@{task.created_at!r}"


def lent_claims(env: Mapping[str, str]) -> dict[str, tuple[int, float]]:
    """The claim `CLAIM_ENV` lends (`ID@FENCE@CREATED`), by task id: its fence and the task's
    creation time; nothing when unset or malformed."""
    task_id, fence, created = ([*env.get(CLAIM_ENV, "").split("@"), "", ""])[:3]
    try:
        made = float(created)
    except ValueError:
        return {}
    return {task_id: (int(fence), made)} if task_id and fence.isdigit() else {}


def lease_from(env: Mapping[str, str]) -> float:
    """`LEASE_ENV`'s lease, or the default; a value that is no positive number is refused."""
    text = env.get(LEASE_ENV, "").strip()
    if not text:
        return DEFAULT_LEASE_S
    try:
        lease = float(text)
    except ValueError:
        lease = 0.0
    if not lease > 0 or lease == float("inf"):
        raise ConfigError(f"{LEASE_ENV}={text!r}: a claim's lease in seconds, more than 0")
    return lease


@dataclass
class TaskBoard:
    """One session's view of its team's board: the store, opened on first use, and the claims
    its agent holds (renewed every third of the lease, released when the session ends)."""

    choice: TeamChoice
    project: Path
    owner: str
    lease_s: float = DEFAULT_LEASE_S
    opener: Callable[..., TaskStore] = open_task_store
    claims: dict[str, Claim] = field(default_factory=dict[str, Claim])
    lent: dict[str, tuple[int, float]] = field(default_factory=dict[str, tuple[int, float]])
    """Claims whoever runs the session holds (a worker, on the task it gave the session), by
    task id, their fence and the task's creation time: used to complete or fail that task,
    never renewed nor released here."""
    on_task: list[Callable[[str | None], None]] = field(
        default_factory=list[Callable[[str | None], None]]
    )
    """Told the task the agent works on now (`working_on`) each time it changes: the event
    log and the ledger file what the session does under it."""
    events: list[Callable[[Record], None]] = field(default_factory=list[Callable[[Record], None]])
    """Told each task change made through the board (`TaskChanged`): the session's event log."""
    filed: str | None = None
    """The task the session was run for by a worker, resumed since without its worker's claim
    (`tether -r ID`): its spend and events go under that task while it holds no claim."""
    held_before: list[str] = field(default_factory=list[str])
    """The claims (`lent_value`s) the session held when its last run ended (its session
    file's newest `CLAIMS_NOTE`): `take_back` holds them again, or says they were lost."""
    turn: asyncio.Lock = field(default_factory=asyncio.Lock)
    """The agent's calls reach the store one at a time, in the order they asked (calls of one
    response run side by side: two TaskCreates get their ids in call order)."""
    _store: TaskStore | None = None
    _renewer: asyncio.Task[None] | None = None
    _told: str | None = None

    def working_on(self) -> str | None:
        """The task the agent works on now: the newest it claimed and still holds, else the
        one its worker lent it, else the one a worker ran it for (`filed`), else none."""
        if self.claims:
            return next(reversed(self.claims))
        return next(iter(self.lent), self.filed)

    def _tell(self) -> None:
        now = self.working_on()
        if now != self._told:
            self._told = now
            for told in self.on_task:
                told(now)

    @property
    def team(self) -> str:
        return self.choice.team

    def store(self) -> TaskStore:
        if self._store is None:
            # A worker lent a claim: its board exists; one gone is not made again, empty.
            opened = self.opener(
                self.choice.store_url, project=self.project, team=self.team, made=not self.lent
            )
            self._store = ObservedTasks(opened, by=self.owner, emit=self._emit)
        return self._store

    def _emit(self, event: Record) -> None:
        for told in self.events:
            told(event)

    async def call(self, step: Callable[[TaskStore], T]) -> T:
        """Run a store step on a thread (stores block), after the steps asked before it."""
        async with self.turn:
            return await asyncio.to_thread(lambda: step(self.store()))

    def hold(self, claim: Claim) -> None:
        self.claims.pop(claim.task_id, None)  # the newest claim last
        self.claims[claim.task_id] = claim
        self._tell()
        if self._renewer is None or self._renewer.done():
            self._renewer = asyncio.get_running_loop().create_task(self._renew())

    def lent_claim(self, task: Task) -> Claim | None:
        """The claim lent on `task`, while it still holds it (the task's fence is its own, and
        it is the same task, not a later one of a board started again)."""
        fence, created = self.lent.get(task.id, (None, None))
        if fence is None or task.status != "in_progress" or task.fence != fence:
            return None
        if task.created_at != created:
            return None
        lease = task.lease_expires_at or 0.0
        return Claim(task=task, owner=self.owner, fence=fence, lease_expires_at=lease)

    def held_values(self) -> list[str]:
        """The claims held now, as `lent_value`s (what a session file notes)."""
        return [lent_value(c.task) for c in self.claims.values()]

    async def take_back(self) -> list[str]:
        """The session starts again (a teammate restarted, a session resumed) under an owner
        name that may hold claims from its last run: each task the board says this owner
        holds, and each `held_before` names, is held again under its own fence, its lease
        renewed from now; one given to another (or removed) since is not. Returns what to
        tell the agent, one line a task."""
        tasks = await self.call(lambda s: s.list())
        wanted = {
            t.id: (t.fence, t.created_at)
            for t in tasks
            if t.status == "in_progress" and t.owner == self.owner
        }
        for value in self.held_before:
            for task_id, held in lent_claims({CLAIM_ENV: value}).items():
                wanted.setdefault(task_id, held)
        on_board = {t.id: t for t in tasks}
        said: list[str] = []
        for task_id, (fence, created) in wanted.items():
            task = on_board.get(task_id)
            if task is None or task.created_at != created:
                said.append(
                    f"Your claim on task #{task_id} ended while you were stopped: that task is "
                    "no longer on the board. Do not go on with it."
                )
                continue
            lease = task.lease_expires_at or 0.0
            claim = Claim(task=task, owner=self.owner, fence=fence, lease_expires_at=lease)
            try:
                renewed = await self.call(lambda s, c=claim: s.heartbeat(c, lease_s=self.lease_s))
            except LeaseLost as e:
                said.append(
                    f"Your claim on task #{task_id} ({task.subject}) was lost while you were "
                    f"stopped: {e}. Do not go on with it unless you claim it again."
                )
                continue
            self.hold(renewed)
            said.append(
                f"You hold task #{task_id} ({task.subject}) again, as before you were stopped: "
                "carry on with it and finish it with TaskUpdate."
            )
        return said

    def file_under(self, task_id: str) -> None:
        """The session was run for `task_id` by a worker: what it does is that task's."""
        self.filed = task_id
        self._tell()

    def let_go(self, task_id: str) -> Claim | None:
        claim = self.claims.pop(task_id, None)
        self._tell()
        return claim

    async def _renew(self) -> None:
        """Heartbeats while claims are held; a claim whose lease was lost is dropped (its task
        went back to the board; completing it would be refused anyway)."""
        while self.claims:
            await asyncio.sleep(self.lease_s / 3)
            for task_id, claim in list(self.claims.items()):
                try:
                    renewed = await self.call(
                        lambda s, c=claim: s.heartbeat(c, lease_s=self.lease_s)
                    )
                except LeaseLost:
                    self.let_go(task_id)
                    continue
                if task_id in self.claims:
                    self.claims[task_id] = renewed

    async def close(self) -> None:
        """Give back what is still held and close the store."""
        if self._renewer is not None:
            self._renewer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewer
        for claim in list(self.claims.values()):
            with contextlib.suppress(LeaseLost):
                await self.call(lambda s, c=claim: s.release(c))
        self.claims.clear()
        self._tell()
        if self._store is not None:
            self._store.close()
            self._store = None
