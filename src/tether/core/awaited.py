"""What an agent waits on beside its own tools (a teammate at work, as a lead sees it), and
how the repeat guard (`repeated_calls`) tells a change of it from a repeat: a state not seen
before in the turn is headway; one seen before is not (a chatty teammate saying the same again,
one flipping between working and idle). One with no new state for `HUNG_AFTER_S` looks hung."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Final

from tether.config.numbers import env_number
from tether.slotted import Slotted

HUNG_AFTER_S = 300.0
"""How long a teammate waited on may go without a new state (a message, a reply) before it
looks hung (`TETHER_HUNG_AFTER_MS`): five minutes, whatever the number of polls meanwhile."""

HUNG_ENV = "TETHER_HUNG_AFTER_MS"


class Awaited(Slotted):
    """What an agent waits on beside its own tools (a teammate it gave work to, a reply one
    owes it), as a lead sees it: `state` changes while it makes headway ('' : nothing seen)."""

    __slots__ = ("id", "state")
    id: Final[str]
    state: Final[str]

    def __init__(self, id: str, state: str = "") -> None:
        self.id = id
        self.state = state


class AwaitedStates:
    """The states what is waited on had in a turn, and since when each has had none new."""

    __slots__ = ("_hung_after_s", "_now", "_since", "_states")

    def __init__(self) -> None:
        self._now: dict[str, str] = {}
        """What is waited on, by id: its state when last asked."""
        self._states: set[tuple[str, str | None]] = set()
        """Each state (None: not waited on) that what was waited on had in the turn."""
        self._since: dict[str, float] = {}
        """Since when each waited on has had no new state."""
        hung_ms = env_number(os.environ, HUNG_ENV)
        self._hung_after_s = HUNG_AFTER_S if hung_ms is None else hung_ms / 1000

    def changed(self, awaited: Sequence[Awaited]) -> bool:
        """Whether what is waited on took a state not seen before in the turn (one came or
        went for the first time, or said something new)."""
        now = time.time()
        now_states = {a.id: a.state for a in awaited}
        states: set[tuple[str, str | None]] = set(now_states.items())
        states.update((gone, None) for gone in self._now.keys() - now_states.keys())
        new = states - self._states
        self._states |= new
        for id, _ in new:
            self._since[id] = now
        self._now = now_states
        return bool(new)

    def hung(self, awaited: Sequence[Awaited]) -> str:
        """Who of `awaited` looks hung (no new state for `HUNG_AFTER_S`), and since when."""
        now = time.time()
        since = {a.id: self._since[a.id] for a in awaited if a.id in self._since}
        stale = {k: v for k, v in since.items() if now - v >= self._hung_after_s}
        if not stale:
            return ""
        names = sorted(stale, key=lambda k: stale[k])
        when = datetime.fromtimestamp(stale[names[0]], UTC).strftime("%H:%M:%S UTC")
        who = ", ".join(names[:3]) + (" and more" if len(names) > 3 else "")
        return (
            f"{who} looks hung: no change since {when} (no message, no new state); ask it what "
            "is in the way, stop it, or go on without it"
        )
