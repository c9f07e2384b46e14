"""What a lead that stops leaves open, said as it exits (`tether -p`): whom it is still
waiting on and for what — each board task a teammate or a worker holds (its subject and its
lease), each request of the lead's with no reply yet (to whom, what it asked, how long until
it times out) — and what it owes; then how to take it up again. Nothing open: nothing said."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tether.store.task_graph import stamp
from tether.store.task_records import StoreUnavailable, Task
from tether.store.task_store import open_task_store, store_location
from tether.teams.protocol import MemberProtocol

SHOWN_CHARS = 60
"""How much of a task's subject or a request's text is said."""


def held_tasks(project: Path, store_url: str | None, team: str, lead: set[str]) -> list[Task] | str:
    """The team's board tasks in progress under a claim that is not the lead's own (`lead`:
    the names its claims are under); or why the board could not be read. A board that was
    never made holds none (none is made)."""
    try:
        where = store_location(store_url, project=project, team=team)
        if isinstance(where, Path) and not where.exists():
            return []
        store = open_task_store(store_url, project=project, team=team)
        try:
            tasks = store.list()
        finally:
            store.close()
    except StoreUnavailable as e:
        return f"its board's tasks not read: {e}"
    return [t for t in tasks if t.status == "in_progress" and t.owner and t.owner not in lead]


def left_open(
    team: str, protocol: MemberProtocol, held: Sequence[Task] | str, now: float
) -> str | None:
    """The sentence a lead that stops now says (None when nothing is open): grouped by whom
    it waits on, the tasks they hold and the replies they owe it; then the requests it has
    not answered."""
    waits: dict[str, list[str]] = {}
    for task in held if not isinstance(held, str) else ():
        assert task.owner is not None
        lease = f", lease until {stamp(task.lease_expires_at)}" if task.lease_expires_at else ""
        waits.setdefault(task.owner, []).append(
            f"task #{task.id} {_short(task.subject)} in progress{lease}"
        )
    for pending in protocol.pending.values():
        message = pending.message
        due = (
            f", times out in {max(0.0, pending.deadline - now):.0f} s"
            if pending.deadline is not None
            else ""
        )
        waits.setdefault(message.recipient, []).append(
            f"the reply to request {message.id} {_short(message.text or message.kind)}{due}"
        )
    owed = [f"{m.kind} {m.id} from {m.sender}" for m in protocol.owed.values()]
    said = [f"waiting on {who}: {'; '.join(what)}" for who, what in waits.items()]
    if owed:
        said.append(f"{len(owed)} request(s) not answered ({', '.join(owed)})")
    if isinstance(held, str):
        said.append(held)
    if not waits and not owed:
        return None
    return (
        f"team {team}: this lead stops {' and '.join(said)}; what comes meanwhile is kept in "
        "its mailbox: run again with --continue (or --resume) to take it up"
    )


def _short(text: str) -> str:
    one = " ".join(text.split())
    return repr(one if len(one) <= SHOWN_CHARS else one[: SHOWN_CHARS - 1] + "…")
