"""The teammates' protocol: four states, the moves between them, and what each side may send.

A member is **idle**, **requesting** (its request is being stored), **waiting** (for the reply
to its request) or **responding** (it owes a reply to a request it received). The rule the
harness enforces, whatever the prompt says: a member that waits for a reply may not send a new
request (it may still send plain messages and replies, so two members asking each other never
deadlock). A reply names the request it answers (`reply_to`); a reply that comes after its
request timed out is still matched to it, and said to be late; a request that gets no reply
within its timeout returns its sender to idle with an error.

Besides plain requests: the lead's shutdown request, which its teammate answers with a shutdown
response (approve: the teammate finishes and stops), and plan approval, which a teammate in plan
mode (read-only) asks of the lead; it stays read-only until the lead approves.

Pure: no clocks (times are passed in), no I/O. Every change of a member's state (or plan mode,
or shutdown) is a `Transition`, given to the listeners and kept in `transitions`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from tether.store.mailbox import HeldRequest, Message
from tether.store.mailbox_records import INVALID_KIND
from tether.teams.protocol_kinds import (
    ANSWERED_KEPT,
    BLOCKING,
    DEFAULT_REQUEST_TIMEOUT_S,
    KINDS,
    LEAD_ONLY,
    REPLIES,
    REQUESTS,
    TASK_KINDS,
    Pending,
    ProtocolError,
    Received,
    State,
    Transition,
    Watch,
    reply_kind,
)

__all__ = [
    "DEFAULT_REQUEST_TIMEOUT_S",
    "REPLIES",
    "REQUESTS",
    "TASK_KINDS",
    "MemberProtocol",
    "ProtocolError",
    "Received",
    "Transition",
]


@dataclass
class MemberProtocol:
    """One member's side of the protocol (the lead's or a teammate's)."""

    name: str
    lead: str
    members: tuple[str, ...] = ()
    """The team's other members, to check a recipient's name (empty: not checked)."""
    plan_mode: bool = False
    """Read-only until the lead approves a plan."""
    read_only_as: str | None = None
    """What this member is when it only reads for good (a read-only agent type, "a
    read-only Explore agent"): no approval makes it writable, so it has no plan to ask for."""
    timeout_s: float = DEFAULT_REQUEST_TIMEOUT_S
    listeners: list[Callable[[Transition], None]] = field(
        default_factory=list[Callable[[Transition], None]]
    )
    transitions: list[Transition] = field(default_factory=list[Transition])
    stopping: bool = False
    """It approved a shutdown request: it finishes what it does and stops."""
    sending: Message | None = None
    pending: dict[str, Pending] = field(default_factory=dict[str, Pending])
    expired: dict[str, Message] = field(default_factory=dict[str, Message])
    """Requests that timed out, kept to match a late reply."""
    owed: dict[str, Message] = field(default_factory=dict[str, Message])
    """Requests received and not replied to, by id."""
    answered: dict[str, None] = field(default_factory=dict[str, None])
    """Requests replied to, by id, oldest first (an ordered set): one answered again is
    refused as such (the last `ANSWERED_KEPT` are kept in the roster for a restart)."""

    @property
    def is_lead(self) -> bool:
        return self.name == self.lead

    @property
    def state(self) -> State:
        if self.sending is not None:
            return "requesting"
        if self.waiting_on() is not None:
            return "waiting"
        if self.owed:
            return "responding"
        return "idle"

    def waiting_on(self) -> Pending | None:
        """The request this member waits on a reply to, if any."""
        return next((p for p in self.pending.values() if p.message.kind in BLOCKING), None)

    # Sending

    def outgoing(self, message: Message, now: float) -> Message:
        """Check a message this member is about to send; a request moves it to `requesting`
        until `sent` (or `send_failed`). Raises `ProtocolError` saying why it may not."""
        self._check_outgoing(message, now)
        if message.kind in REQUESTS:
            with self._watch(self._cause_out(message), message.id, now):
                self.sending = message
        return message

    def sent(self, message: Message, now: float, *, timeout_s: float | None = None) -> None:
        """The message is stored: a request's sender now waits for its reply; a reply's
        request is answered."""
        if message.kind in REPLIES and message.reply_to in self.owed:
            with self._watch(self._cause_out(message), message.id, now):
                del self.owed[message.reply_to]
                self.answered[message.reply_to] = None
                if message.kind == "shutdown_response" and message.data.get("approve") is True:
                    self.stopping = True
            return
        if self.sending is None or self.sending.id != message.id:
            return
        wait = self.timeout_s if timeout_s is None else timeout_s
        with self._watch(
            f"{message.kind} {message.id} to {message.recipient} stored", message.id, now
        ):
            self.sending = None
            self.pending[message.id] = Pending(message, now, now + wait if wait > 0 else None)

    def after_sent(
        self, message: Message, now: float, *, timeout_s: float | None = None
    ) -> MemberProtocol:
        """This member as it will be once `message` is `sent` (a copy, telling nobody): its
        new state, to be stored with the message."""
        after = replace(
            self,
            listeners=[],
            transitions=[],
            pending=dict(self.pending),
            expired=dict(self.expired),
            owed=dict(self.owed),
            answered=dict(self.answered),
        )
        after.sent(message, now, timeout_s=timeout_s)
        return after

    def send_failed(self, message: Message, now: float, error: str) -> None:
        """The store refused the request: back to where the member was."""
        if self.sending is None or self.sending.id != message.id:
            return
        with self._watch(f"request {message.id} not sent: {error}", message.id, now):
            self.sending = None

    def _check_outgoing(self, message: Message, now: float) -> None:
        kind = message.kind
        if message.sender != self.name:
            raise ProtocolError(f"{self.name} cannot send as {message.sender}")
        if kind not in KINDS:
            raise ProtocolError(
                f"unknown message kind {kind!r} (known: {', '.join(sorted(KINDS))})"
            )
        if message.recipient == self.name:
            raise ProtocolError("a member cannot send a message to itself")
        if self.members and message.recipient not in self.members:
            raise ProtocolError(
                f"no member named {message.recipient!r} in the team "
                f"(members: {', '.join(self.members)})"
            )
        if kind in LEAD_ONLY and not self.is_lead:
            raise ProtocolError(f"only the team lead ({self.lead}) sends a {kind}")
        if kind == "plan_approval_request" and self.read_only_as:
            raise ProtocolError(
                f"{self.name} is {self.read_only_as}: no approval can make it writable, so "
                "there is no plan to approve. Send the lead what should change as a plain "
                "message, for a member that can write"
            )
        if kind == "plan_approval_request" and message.recipient != self.lead:
            raise ProtocolError(f"a plan is approved by the team lead ({self.lead})")
        if kind in BLOCKING:
            self._check_may_request(now)
        if kind in REPLIES:
            self._check_reply(message)

    def _check_may_request(self, now: float) -> None:
        if self.sending is not None:
            raise ProtocolError(
                f"request {self.sending.id} to {self.sending.recipient} is still being sent"
            )
        waiting = self.waiting_on()
        if waiting is None:
            return
        asked = waiting.message
        left = (
            f"; it times out in {max(0.0, waiting.deadline - now):.0f} s"
            if waiting.deadline is not None
            else ""
        )
        raise ProtocolError(
            f"{self.name} is waiting for {asked.recipient}'s reply to request {asked.id} "
            f"(sent {max(0.0, now - waiting.since):.0f} s ago{left}): a member that waits "
            "for a reply may not send a new request. Send a plain message instead, or wait "
            "for the reply."
        )

    def _check_reply(self, message: Message) -> None:
        asked_id = message.reply_to
        expected = REPLIES[message.kind]
        if asked_id is None:
            raise ProtocolError(f"a {message.kind} names the request it answers (reply_to)")
        request = self.owed.get(asked_id)
        if request is None:
            if asked_id in self.answered:
                raise ProtocolError(f"request {asked_id} has been answered already")
            raise ProtocolError(f"no request {asked_id} to reply to; {self._owed_summary()}")
        if request.kind != expected:
            raise ProtocolError(
                f"request {asked_id} is a {request.kind}: it is answered with a "
                f"{reply_kind(request.kind)}, not a {message.kind}"
            )
        if request.sender != message.recipient:
            raise ProtocolError(
                f"request {asked_id} came from {request.sender}: the reply goes to them, "
                f"not to {message.recipient}"
            )
        if message.kind != "reply" and not isinstance(message.data.get("approve"), bool):
            raise ProtocolError(f"a {message.kind} says whether it approves (approve: true/false)")

    def _owed_summary(self) -> str:
        if not self.owed:
            return f"{self.name} owes no reply"
        listed = ", ".join(f"{m.id} ({m.kind} from {m.sender})" for m in self.owed.values())
        return f"requests awaiting {self.name}'s reply: {listed}"

    # Receiving

    def incoming(self, message: Message, now: float) -> Received:
        """A message delivered to this member: requests are owed a reply, replies are matched
        to their request (a late one too). Nothing is refused here: a message that breaks
        the rules (one from a stranger, one for another member) is delivered with a note
        saying how (never lost); a stranger's request is not owed a reply (none reaches it)."""
        received = self._incoming(message, now)
        odd = self._misaddressed(message)
        if odd is None:
            return received
        note = f"{odd}; {received.note}" if received.note else odd
        return replace(received, note=note)

    def _misaddressed(self, message: Message) -> str | None:
        if message.kind == INVALID_KIND:
            return None
        if message.recipient not in (self.name, "*"):
            return f"it is addressed to {message.recipient!r}, not to {self.name}"
        if self.members and message.sender not in self.members:
            return (
                f"its sender {message.sender!r} is not a member of the team "
                f"(members: {', '.join(self.members)})"
            )
        return None

    def _incoming(self, message: Message, now: float) -> Received:
        kind = message.kind
        if kind in LEAD_ONLY and message.sender != self.lead:
            return Received(
                message,
                note=f"only the team lead ({self.lead}) sends a {kind}: this one from "
                f"{message.sender} is not obeyed and needs no answer",
                obeyed=False,
            )
        if kind in REQUESTS and self.members and message.sender not in self.members:
            note = f"a {kind} from outside the team is not obeyed and needs no answer"
            return Received(message, note=note, obeyed=False)  # no reply could reach it
        if kind in REQUESTS:
            if message.id in self.owed or message.id in self.answered:
                return Received(message)  # a redelivery
            with self._watch(f"{kind} {message.id} from {message.sender}", message.id, now):
                self.owed[message.id] = message
            return Received(message)
        if kind in REPLIES:
            return self._match_reply(message, now)
        if kind == INVALID_KIND:
            why = message.data.get("error") or "a stored entry that is not a message"
            shown = "its raw text is above, as it was stored" if message.text else "it has no text"
            return Received(message, note=f"{why}: {shown}")
        if kind not in KINDS:
            return Received(message, note=f"a message of unknown kind {kind!r}")
        return Received(message)

    def _match_reply(self, message: Message, now: float) -> Received:
        asked_id = message.reply_to or ""
        pending = self.pending.get(asked_id)
        late = self.expired.get(asked_id)
        request = pending.message if pending is not None else late
        if request is None:
            return Received(
                message,
                note=f"it replies to request {asked_id or '(none named)'}, which "
                f"{self.name} did not send or has had its reply to already",
            )
        if request.recipient not in ("*", message.sender):
            return Received(
                message,
                note=f"it replies to request {asked_id}, which {self.name} sent to "
                f"{request.recipient}, not to {message.sender}: not taken as its answer",
                obeyed=False,
            )
        cause = f"{message.kind} to {asked_id} from {message.sender}"
        note: str | None = None
        with self._watch(cause, message.id, now):
            self.pending.pop(asked_id, None)
            self.expired.pop(asked_id, None)
            if late is not None:
                note = f"a late reply: request {asked_id} had timed out"
            if message.kind == "plan_approval_response":
                if message.data.get("approve") is True:
                    self.plan_mode = False
                else:
                    why = "see its feedback" if message.data.get("feedback") else "no reason given"
                    note = f"plan not approved ({why}): still in plan mode (read-only)"
        return Received(message, note=note, answers=request)

    # Restarts

    def held(self) -> tuple[list[HeldRequest], list[Message]]:
        """What the roster keeps for a restart: the requests sent without their reply yet
        (timed out ones too, for a late reply), and those owed a reply."""
        sent = [
            HeldRequest(message=p.message, since=p.since, deadline=p.deadline)
            for p in self.pending.values()
        ]
        sent += [
            HeldRequest(message=m, since=m.sent_at, expired=True) for m in self.expired.values()
        ]
        return sent, list(self.owed.values())

    def answered_kept(self) -> list[str]:
        """The ids of the requests it answered last, for the roster (`restore` takes them
        back): the newest `ANSWERED_KEPT`."""
        return list(self.answered)[-ANSWERED_KEPT:]

    def restore(
        self,
        sent: list[HeldRequest],
        owed: list[Message],
        now: float,
        answered: Sequence[str] = (),
    ) -> None:
        """Take back what an earlier run of this member had sent and owed (`held`): waiting
        and responding again, a transition saying so; and the requests it had answered
        (`answered_kept`), so that one answered again is refused as answered already."""
        for request_id in answered:
            if request_id not in self.owed:
                self.answered[request_id] = None
        if not sent and not owed:
            return
        with self._watch("restarted: its requests and owed replies taken back", None, now):
            for held in sent:
                if held.expired:
                    self.expired[held.message.id] = held.message
                else:
                    self.pending[held.message.id] = Pending(held.message, held.since, held.deadline)
            for message in owed:
                self.owed[message.id] = message

    # Time

    def next_deadline(self) -> float | None:
        deadlines = [p.deadline for p in self.pending.values() if p.deadline is not None]
        return min(deadlines, default=None)

    def expire(self, now: float) -> list[Message]:
        """The requests whose time is up: their senders go back to idle. Each is returned, for
        the member's model to be told (an error)."""
        gone = [
            p.message for p in self.pending.values() if p.deadline is not None and p.deadline <= now
        ]
        for request in gone:
            with self._watch(
                f"request {request.id} to {request.recipient} timed out", request.id, now
            ):
                del self.pending[request.id]
                self.expired[request.id] = request
        return gone

    # Events

    def _watch(self, cause: str, message_id: str | None, now: float) -> Watch:
        return Watch(self, cause, message_id, now)

    def _cause_out(self, message: Message) -> str:
        if message.reply_to is not None:
            return f"{message.kind} to {message.reply_to} sent to {message.recipient}"
        return f"{message.kind} {message.id} to {message.recipient}"

    def _tell(self, transition: Transition) -> None:
        self.transitions.append(transition)
        for listen in self.listeners:
            listen(transition)
