"""`TeamLink`: one member's end of its team: the protocol it keeps and the store it sends
through. The lead's session and every teammate's have one; `SendMessage` goes through it.

Sending checks the protocol first (a refusal is a `ProtocolError` the tool gives back to the
model), then stores the message (durable once `send` returns), then tells the protocol it
was stored; every change of the member's state is written to the roster (as it happens, and
kept until the store takes it: `keeping.py`) and to the team's event log. A request that
waits past its timeout is expired by the link itself (`watch_deadlines`, and before any new
request), whatever the member is doing, and told to `on_timeout`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from tether.protocol import Record
from tether.protocol.team_events import TeammateStateChanged
from tether.runtime_dir import make_runtime_dir
from tether.store.mailbox import Member, Message, TeamExists, TeamRecord, TeamStore, UnknownMember
from tether.store.task_records import StoreUnavailable
from tether.teams.cut_sends import CutSends, PartlySent, SendKey
from tether.teams.keeping import Keeper
from tether.teams.membership import STORE_PATIENCE_S
from tether.teams.patience import Patience
from tether.teams.protocol import REPLIES, REQUESTS, MemberProtocol, ProtocolError, Transition
from tether.teams.resend import message_id, resent

BROADCAST = "*"
T = TypeVar("T")


@dataclass
class TeamLink:
    team: str
    member: str
    store: TeamStore
    """Used for sending and the roster (a teammate receives on a connection of its own)."""
    protocol: MemberProtocol
    events_path: Path | None = None
    """The team's event log (JSON lines, one per transition), read by `team status`."""
    clock: Callable[[], float] = time.time
    known_team: TeamRecord | None = None
    known_member: Member | None = None
    """What the roster said at the start: written again should the store lose it."""
    warn: Callable[[str], None] = lambda _: None
    """Says what went wrong with the roster (a teammate's log)."""
    patience: Patience | None = None
    """How a send waits out an outage of the store (a teammate's `--store-patience`; None:
    `STORE_PATIENCE_S`, said through `warn`): tried again under the same ids until stored,
    so that a store paused past one try's wait neither loses the message nor doubles it."""
    session: str = ""
    """The id of the member's session (a teammate's is kept across its restarts): the ids of
    the messages its tool calls send derive from it (`message_id`)."""
    events: list[Callable[[Record], None]] = field(default_factory=list[Callable[[Record], None]])
    """Told each transition (`TeammateStateChanged`): the session's event log, with every
    other event of every member."""
    on_timeout: list[Callable[[Message], None]] = field(
        default_factory=list[Callable[[Message], None]]
    )
    """Told each request of this member's that got no reply in time (its model is told)."""
    working: set[str] = field(default_factory=set[str])
    """The members this one gave work to (a message or a request stored for them) that have
    not said they are idle since: what a lead waits on."""
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _published: dict[str, Any] = field(default_factory=dict[str, Any])
    """Every field this member wrote to the roster, newest value each."""
    _keeper: Keeper | None = None
    _deadlines: asyncio.Event | None = None
    _cut: CutSends = field(default_factory=CutSends)
    """The ids of the sends the store cut, tried under them again when resent."""
    """Set when the member's requests change (a new deadline to wait for)."""

    def __post_init__(self) -> None:
        if self.patience is None:
            self.patience = Patience(self.store.url, STORE_PATIENCE_S, self.warn)
        self.protocol.listeners.append(self._log)
        self._keeper = Keeper(
            store=self.store,
            member=self.member,
            fields=self._fields,
            write_member=self._write_member,
            warn=self.warn,
        )

    @property
    def keeper(self) -> Keeper:
        assert self._keeper is not None
        return self._keeper

    async def refresh_members(self, patience: Patience | None = None) -> list[str]:
        """The team's member names, read again; `patience`: waiting out an outage."""
        members = self.store.members
        found = await (patience.acall(members) if patience else asyncio.to_thread(members))
        names = [m.name for m in found]
        self.protocol.members = tuple(names)
        return names

    async def send(
        self,
        to: str,
        kind: str,
        text: str = "",
        *,
        reply_to: str | None = None,
        data: dict[str, Any] | None = None,
        timeout_s: float | None = None,
        call_id: str | None = None,
    ) -> list[Message]:
        """Send to one member, or to every other one (`*`): the messages stored. Raises
        `ProtocolError` for what the protocol refuses, naming the reason. `call_id`: the
        tool call that sends them, whose ids derive from it (`resent`), so that the call run
        again after its process was killed stores each once. A store out of reach is waited
        for (`patience`); `StorePatienceOut` once it has not answered for that long, the
        messages not stored."""
        async with self._lock:
            names = await self.refresh_members(self.patience)
            if to == BROADCAST:
                if kind != "message":
                    raise ProtocolError(
                        f"a {kind} goes to one member, not to everyone ({BROADCAST})"
                    )
                recipients = [n for n in names if n != self.member]
                if not recipients:
                    raise ProtocolError(f"team {self.team} has no other member to broadcast to")
            else:
                recipients = [to]
            key: SendKey = (to, kind, text, reply_to)
            messages = [
                Message(
                    sender=self.member,
                    recipient=r,
                    kind=kind,
                    text=text,
                    reply_to=reply_to,
                    data=dict(data or {}),
                    id=self._cut.id_for(key, r)
                    or (
                        uuid.uuid4().hex
                        if call_id is None
                        else message_id(self.session, self.member, call_id, r)
                    ),
                )
                for r in recipients
            ]
            if call_id is not None and await resent(self.store, messages, self._patient):
                return messages
            self.expire_due()  # a request past its time no longer holds a new one back
            for message in messages:
                self.protocol.outgoing(message, self.clock())
            for done, message in enumerate(messages):
                try:
                    await self._store(message, timeout_s)
                except (StoreUnavailable, ProtocolError) as e:
                    # Tried again, the same message goes under these ids: those that hold
                    # it are skipped.
                    self._cut.cut(key, messages)
                    if done == 0:
                        raise
                    raise PartlySent(messages[:done], messages[done:], e) from e
            self._cut.done(key)
            await self.publish()
            return messages

    async def _store(self, message: Message, timeout_s: float | None) -> None:
        now = self.clock()
        if message.kind in REQUESTS or message.kind in REPLIES:
            # Its new state goes with it, in one write (none of the keeper's in between): no
            # reader sees a reply while its sender is still said to be responding.
            async with self.keeper.writing:
                after = self.protocol.after_sent(message, now, timeout_s=timeout_s)
                fields = {**self._fields_of(after), "updated_at": now}
                await self._stored(self.store.send_as, message, fields)
                self._published.update(fields)
                self.protocol.sent(message, now, timeout_s=timeout_s)
        else:
            await self._stored(self.store.send, message)
            self.protocol.sent(message, now, timeout_s=timeout_s)
        if message.kind in ("message", "request"):
            self.working.add(message.recipient)
        if message.kind == "plan_approval_response" and message.reply_to is not None:
            await asyncio.to_thread(_note_plan_answer, self.store, message)

    async def _patient(self, step: Callable[[], T]) -> T:
        assert self.patience is not None
        return await self.patience.acall(step)

    async def _stored(self, store: Callable[..., Message], message: Message, *more: Any) -> None:
        """Store the message, tried again under its id while the store cannot be reached (a
        try that timed out may have stored it: the next one finds it posted, and skips it)."""
        try:
            await self._patient(functools.partial(store, message, *more))
        except UnknownMember as e:
            self.protocol.send_failed(message, self.clock(), str(e))
            raise ProtocolError(str(e)) from None
        except BaseException as e:
            self.protocol.send_failed(message, self.clock(), str(e) or type(e).__name__)
            raise

    async def notify(
        self, to: str, kind: str, text: str = "", *, data: dict[str, Any] | None = None
    ) -> Message:
        """Send a notice (`idle_notification`) that must not be lost: a store out of reach
        keeps it, sent again under its id until stored. Raises `ProtocolError` for what the
        protocol refuses."""
        message = Message(
            sender=self.member, recipient=to, kind=kind, text=text, data=dict(data or {})
        )
        async with self._lock:
            with contextlib.suppress(StoreUnavailable):
                await self.refresh_members()
            self.protocol.outgoing(message, self.clock())
            await self.keeper.notify(message)
        return message

    async def publish(self, **more: Any) -> None:
        """Write the member's protocol state (and `more` fields) to the roster; a store out of
        reach keeps them, written once it answers."""
        await self.keeper.publish({"updated_at": self.clock(), **more})

    def _fields(self) -> dict[str, Any]:
        return self._fields_of(self.protocol)

    @staticmethod
    def _fields_of(protocol: MemberProtocol) -> dict[str, Any]:
        waiting = protocol.waiting_on()
        sent, owed = protocol.held()
        return {
            "state": protocol.state,
            "pending_request": waiting.message.id if waiting is not None else None,
            "requests_sent": sent,
            "requests_owed": owed,
            "requests_answered": protocol.answered_kept(),
            "plan_mode": protocol.plan_mode,
        }

    async def _write_member(self, changes: dict[str, Any]) -> None:
        self._published.update(changes)
        try:
            await asyncio.to_thread(self.store.update_member, self.member, changes)
        except UnknownMember:
            await asyncio.to_thread(self._restore)

    def expire_due(self) -> list[Message]:
        """Expire this member's requests whose time is up (it stops waiting on them); each is
        told to `on_timeout`."""
        gone = self.protocol.expire(self.clock())
        for request in gone:
            for tell in self.on_timeout:
                tell(request)
        return gone

    async def watch_deadlines(self) -> None:
        """Expire each request when its timeout passes, whatever the member does meanwhile
        (a tool call, a turn, nothing): run for as long as the member is in its team."""
        self._deadlines = changed = asyncio.Event()
        while True:
            deadline = self.protocol.next_deadline()
            timeout = None if deadline is None else max(0.0, deadline - self.clock())
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await changed.wait()
            changed.clear()
            self.expire_due()

    async def close(self) -> None:
        """The member's process ends: stop retrying the store (what is still unstored is
        said)."""
        await self.keeper.close()

    def _restore(self) -> None:
        """The roster lost this member (a store back without its data): write its record,
        and the team's, again from what this member knows."""
        known = self.known_member or Member(name=self.member)
        if self.known_team is not None and self.store.team_record() is None:
            with contextlib.suppress(TeamExists):
                self.store.create_team(self.known_team)
            if self.known_team.lead != self.member:
                self.store.put_member(Member(name=self.known_team.lead, state="idle"))
        fields = {**known.model_dump(), **self._published, "name": self.member}
        self.store.put_member(Member.model_validate(fields))
        self.warn(
            f"the roster of team {self.team!r} in {self.store.url} had lost {self.member}: its "
            "record written again"
        )

    def note_event(self, before: str, after: str, cause: str) -> None:
        """A change of the member's process (stopped, started again in another state) in the
        event log, beside the protocol's transitions."""
        p = self.protocol
        self._write_event(
            {
                "member": self.member,
                "before": before,
                "after": after,
                "cause": cause,
                "message_id": None,
                "at": self.clock(),
                "plan_mode": p.plan_mode,
                "stopping": p.stopping,
            }
        )

    def last_event(self) -> dict[str, Any] | None:
        if self.events_path is None:
            return None
        found = read_events(self.events_path, self.member, last=1)
        return found[0] if found else None

    def _log(self, transition: Transition) -> None:
        self._write_event(transition.__dict__)
        if self._keeper is not None:
            self._keeper.changed()  # the roster says the state the event log says
        if self._deadlines is not None:
            self._deadlines.set()

    def _write_event(self, event: dict[str, Any]) -> None:
        if self.events:
            changed = TeammateStateChanged(
                team=self.team,
                member=str(event["member"]),
                before=str(event["before"]),
                after=str(event["after"]),
                cause=str(event["cause"]),
                message_id=event.get("message_id"),
                plan_mode=bool(event.get("plan_mode")),
            )
            for told in self.events:
                told(changed)
        if self.events_path is None:
            return
        line = json.dumps({"team": self.team, **event}, ensure_ascii=False)
        make_runtime_dir(self.events_path.parent)
        with self.events_path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")


def events_file(project: Path, team: str) -> Path:
    """The team's event log in the project (`.tether/teams/<team>/events.jsonl`)."""
    return project / ".tether" / "teams" / team / "events.jsonl"


def read_events(path: Path, member: str | None = None, last: int = 10) -> list[dict[str, Any]]:
    """The newest `last` transitions of the log (of one member), oldest first; lines that
    are not JSON are skipped (a line cut by a crash)."""
    if not path.is_file():
        return []
    found: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and (member is None or event.get("member") == member):
            found.append(event)  # pyright: ignore[reportUnknownArgumentType]
    return found[-last:]


def member_names(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "none"


def _note_plan_answer(store: TeamStore, answer: Message) -> None:
    """The plan answer on its recipient's roster record (`plan_answers`), with those of its
    plan requests still held: until it takes the answer in (it may not run), `team status`
    shows the plan answered, not awaited. Best effort: the answer itself is stored."""
    assert answer.reply_to is not None
    with contextlib.suppress(UnknownMember, StoreUnavailable):
        record = next((m for m in store.members() if m.name == answer.recipient), None)
        if record is None:
            return
        held = {h.message.id for h in record.requests_sent}
        answers = {i: ok for i, ok in record.plan_answers.items() if i in held}
        answers[answer.reply_to] = answer.data.get("approve") is True
        store.update_member(answer.recipient, {"plan_answers": answers})
