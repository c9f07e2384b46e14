"""A `tether team down` fences the team's starts while it runs, so that it returns only once
nothing of the team runs here: it marks the lead's record (`team_down`) before it reads the
roster, and a start (`team up`, the lead's Task tool) checks the mark after it claims its
members and before it forks. Either the start saw the mark (it starts nothing) or its claims
were there for the down to read (the down waits for their processes and stops them).
A start that finds a down that began before it gives its claims back, waits for the down to
end, then starts what it was asked to: the team runs again, as the last command said; one
that finds a down that began after it starts nothing."""

from __future__ import annotations

import contextlib
import os
import socket
import time
from collections.abc import Callable

from tether.store.mailbox import Member, MemberBusy, StartClaim, TeamStore, UnknownMember
from tether.teams.claims import process_start, runs_as

LEAD = "team-lead"

DOWN_BOUND_S = 3600.0
"""How long a down's mark holds on another machine, where its process cannot be looked at
(here: while its process runs)."""


def fence_starts(store: TeamStore) -> bool:
    """Mark the team as being stopped by this process; False when it has no lead's record
    (nothing was ever started)."""
    me = os.getpid()
    mark = StartClaim(
        pid=me, pid_started=process_start(me), host=socket.gethostname(),
        until=time.time() + DOWN_BOUND_S,
    )  # fmt: skip
    try:
        store.update_member(LEAD, {"team_down": mark.model_dump()})
    except UnknownMember:
        return False
    return True


def lift_fence(store: TeamStore) -> None:
    """Take this process's mark off (another down's, set meanwhile, stays)."""

    def not_mine(lead: Member) -> str | None:
        mark = lead.team_down
        return None if mark is None or mark.pid == os.getpid() else "another down's mark"

    with contextlib.suppress(MemberBusy, UnknownMember):
        store.update_member(LEAD, {"team_down": None}, unless=not_mine)


def team_stopping(store: TeamStore) -> StartClaim | None:
    """The `team down` under way (its mark holds: not lapsed, its process runs), if any."""
    lead = next((m for m in store.members() if m.name == LEAD), None)
    mark = None if lead is None else lead.team_down
    if mark is None or mark.until <= time.time() or mark.pid == os.getpid():
        return None
    if mark.host == socket.gethostname() and not runs_as(mark.pid, mark.pid_started):
        return None
    return mark


def down_began(mark: StartClaim) -> float:
    """When the down that holds `mark` began (wall-clock seconds)."""
    return mark.until - DOWN_BOUND_S


def wait_out_down(
    store: TeamStore, mark: StartClaim | None, say: Callable[[str], None] | None
) -> None:
    """Wait for the `team down` that holds `mark` (and any after it) to end, said once."""
    if mark is not None and say is not None:
        say(f"waiting for `tether team down` (pid {mark.pid} on {mark.host}) to finish first")
    while mark is not None:
        time.sleep(0.05)  # the down's process or its mark: nothing to block on across processes
        mark = team_stopping(store)


def stopped_by_down(mark: StartClaim) -> str:
    """Why a member claimed for a start is not started: a down began meanwhile."""
    return f"not started: `tether team down` (pid {mark.pid} on {mark.host}) stops the team"
