"""The teammates' protocol's words: its states, its message kinds, and the values it tells
(`Transition`, `Received`) and refuses with (`ProtocolError`); `protocol.py` keeps the moves."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from tether.store.mailbox import Message

if TYPE_CHECKING:
    from tether.teams.protocol import MemberProtocol

State = Literal["idle", "requesting", "waiting", "responding"]

DEFAULT_REQUEST_TIMEOUT_S = 600.0
"""How long a request waits for its reply before its sender is returned to idle."""
ANSWERED_KEPT = 64
"""How many answered requests' ids the roster keeps for a member (`answered_kept`)."""

REQUESTS = frozenset({"request", "shutdown_request", "plan_approval_request"})
"""Kinds that expect a reply."""
REPLIES: dict[str, str] = {
    "reply": "request",
    "shutdown_response": "shutdown_request",
    "plan_approval_response": "plan_approval_request",
}
"""Reply kind -> the request kind it answers."""
BLOCKING = frozenset({"request", "plan_approval_request"})
"""Requests whose sender waits for the reply (a lead's shutdown requests do not make it
wait: it may ask every teammate at once)."""
NOTICES = frozenset({"message", "idle_notification"})
"""Kinds that change nobody's state."""
KINDS = REQUESTS | NOTICES | frozenset(REPLIES)
TASK_KINDS = frozenset({"message", "request"})
"""Kinds that give their recipient work: `team status` names the newest one a teammate's model
was given as its current task. A shutdown request, a reply, a plan's approval are no tasks."""
LEAD_ONLY = frozenset({"shutdown_request", "plan_approval_response"})


class ProtocolError(Exception):
    """A message the protocol refuses, said so that the sender knows what to do instead."""


@dataclass(frozen=True)
class Transition:
    """One change of a member's standing in the protocol."""

    member: str
    before: State
    after: State
    cause: str
    """What moved it: `sent request <id> to X`, `reply to <id> from X`, `request <id> timed
    out`, `plan approved`..."""
    message_id: str | None
    at: float
    plan_mode: bool
    stopping: bool


@dataclass
class Pending:
    """A request this member sent and has not had its reply to."""

    message: Message
    since: float
    deadline: float | None


@dataclass(frozen=True)
class Received:
    """An incoming message as the protocol sees it: what to tell the member's model besides
    the message itself."""

    message: Message
    note: str | None = None
    """A late reply, a reply to nothing this member asked, a rejected plan..."""
    answers: Message | None = None
    """The request this message replies to, when it is matched to one."""
    obeyed: bool = True
    """False for a request or reply its sender may not send (a shutdown asked, a plan
    approved, by another than the lead): delivered with a note saying so, owed no answer,
    changing nothing."""


def reply_kind(request_kind: str) -> str:
    return next(reply for reply, asked in REPLIES.items() if asked == request_kind)


@dataclass
class Watch:
    """Compare a member's standing before and after a change; tell a `Transition` if moved."""

    protocol: MemberProtocol
    cause: str
    message_id: str | None
    now: float
    _before: tuple[State, bool, bool] = ("idle", False, False)

    def __enter__(self) -> None:
        p = self.protocol
        self._before = (p.state, p.plan_mode, p.stopping)

    def __exit__(self, *exc: object) -> None:
        p = self.protocol
        after = (p.state, p.plan_mode, p.stopping)
        if after != self._before:
            p._tell(  # pyright: ignore[reportPrivateUsage]
                Transition(
                    member=p.name,
                    before=self._before[0],
                    after=p.state,
                    cause=self.cause,
                    message_id=self.message_id,
                    at=self.now,
                    plan_mode=p.plan_mode,
                    stopping=p.stopping,
                )
            )
