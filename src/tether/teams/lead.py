"""A session as a team's lead: `TeamCreate` and `TeamDelete` (Claude Code's input names), the
Task tool's teammates (`team_name` and `name`), and the lead's mailbox read in the background,
each message put to the session as steering (the model reads it before its next call; when no
turn runs, with the next one) and shown to the user as it arrives.

One team per session, as in Claude Code; a teammate's own session leads no team (no nested
teams). A message is acknowledged once the session holds it (its file keeps it).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tether.core.repeated_calls import Awaited
from tether.protocol import ConfigError, Record, TextBlock, ToolError
from tether.store.mailbox import (
    Delivery,
    Member,
    Message,
    TeamExists,
    TeamRecord,
    TeamStore,
    open_team_store,
)
from tether.store.task_records import StoreDamaged, StoreLost, StoreUnavailable
from tether.teams.claims import claim_lead, process_start
from tether.teams.lead_exit import held_tasks, left_open
from tether.teams.letters import letter, timed_out, written_ids
from tether.teams.link import TeamLink, events_file
from tether.teams.names import check_member_name
from tether.teams.processes import alive, reap, start_members
from tether.teams.protocol import MemberProtocol
from tether.teams.receiving import receive_for_ever
from tether.tools.base import ToolOutput

LEAD = "team-lead"
LEAD_RECEIVE_BLOCK_S = 2.0


@dataclass
class LeadTeams:
    project: Path
    store_url: str | None
    steer: Callable[[str], None] = lambda _: None
    """Puts a message to the session (`Session.steer`), set once the session exists."""
    session_id: str = ""
    """The session's id, set once it exists: its SendMessage ids derive from it."""
    held: Callable[[], set[str]] = set
    """Ids of the team messages the session holds."""
    spend: Callable[[], float] = lambda: 0.0
    mode: Callable[[], str | None] = lambda: None
    """The lead session's permission mode now, which the teammates it starts work in."""
    """What the lead's session has spent (USD), for the roster."""
    note: Callable[[dict[str, object]], None] = lambda _: None
    """Writes the team the session leads into its file (`TEAM_NOTE`), for a resume."""
    shown: list[Callable[[Message], None]] = field(default_factory=list[Callable[[Message], None]])
    """Front ends' callbacks for each message as it arrives (the REPL prints it)."""
    warnings: list[Callable[[str], None]] = field(default_factory=list[Callable[[str], None]])
    """Front ends' callbacks for what goes wrong with the team's store (the REPL prints it)."""
    board_owner: str = LEAD
    """The name the session's own board claims are under: not waited on when it stops."""
    link: TeamLink | None = None
    events: list[Callable[[Record], None]] = field(default_factory=list[Callable[[Record], None]])
    """Told the lead's protocol transitions (its session's event log)."""
    _inbox: TeamStore | None = None
    _listening: asyncio.Task[None] | None = None
    _watching: asyncio.Task[None] | None = None
    _unacked: dict[str, str] = field(default_factory=dict[str, str])
    _acking: set[asyncio.Task[None]] = field(default_factory=set[asyncio.Task[None]])
    _heard: dict[str, str] = field(default_factory=dict[str, str])
    """What each member last sent the lead (its kind and a digest of its words): its state
    as the lead sees it change. The same words again are no change (a chatty teammate)."""

    @property
    def team(self) -> str | None:
        return self.link.team if self.link is not None else None

    async def create(self, name: str, description: str) -> dict[str, object]:
        if self.link is not None:
            raise ToolError(
                f"this session leads team {self.link.team!r} already: one team per session "
                "(TeamDelete it first)"
            )
        try:
            store = await asyncio.to_thread(self._open, name)
        except StoreUnavailable as e:
            raise ToolError(str(e)) from None
        try:
            await asyncio.to_thread(
                store.create_team, TeamRecord(name=name, lead=LEAD, description=description)
            )
        except TeamExists as e:
            store.close()
            return self._take_up(name, e)
        me = Member(
            name=LEAD,
            state="idle",
            pid=os.getpid(),
            pid_started=process_start(os.getpid()),
            host=socket.gethostname(),
        )
        await asyncio.to_thread(store.put_member, me)  # its lease: one live lead (`claim_lead`)
        record = TeamRecord(name=name, lead=LEAD, description=description)
        self.link = TeamLink(
            team=name,
            member=LEAD,
            store=store,
            protocol=MemberProtocol(name=LEAD, lead=LEAD),
            events_path=events_file(self.project, name),
            known_team=record,
            known_member=me,
            warn=self._warn,
            events=self.events,
            on_timeout=[self._timed_out],
            session=self.session_id,
        )
        self._inbox = await asyncio.to_thread(self._open, name)
        self._listening = asyncio.create_task(self._listen(self._inbox, self.link))
        self._watching = asyncio.create_task(self.link.watch_deadlines())
        self.note({"team": name})
        return {"team_name": name, "store": store.url, "lead_agent_id": f"{LEAD}@{name}"}

    def _take_up(self, name: str, exists: TeamExists) -> dict[str, object]:
        """`TeamCreate` of a team that exists with no live lead (one `tether team up` made,
        or whose lead session ended): this session leads it (`rejoin`), the mail waiting for
        the lead given to its next model call; led by a live session: refused, saying so."""
        said = self.rejoin(name, again=False)
        if self.link is None:
            raise ToolError(f"{exists}; {said}")
        self.start_listening()
        return {
            "team_name": name,
            "store": self.link.store.url,
            "lead_agent_id": f"{LEAD}@{name}",
            "taken_up": said,
        }

    async def delete(self) -> dict[str, object]:
        link = self._need_team()
        running = [
            m.name
            for m in await asyncio.to_thread(link.store.members)
            if alive(m) and m.name != LEAD
        ]
        if running:
            raise ToolError(
                f"team {link.team!r} has running teammates ({', '.join(running)}): ask each to "
                'shut down first (SendMessage with {"type": "shutdown_request"})'
            )
        await asyncio.to_thread(link.store.delete_team)
        self.note({"team": None})
        await self.close()
        return {"success": True, "team_name": link.team}

    async def spawn(
        self, team_name: str, name: str, agent: str, prompt: str, plan: bool = False
    ) -> ToolOutput:
        """The Task tool with `team_name` and `name`: a teammate process, given `prompt` as its
        first message; `plan` (the Task tool's `mode: "plan"`): read-only until the lead
        approves its plan."""
        link = self._need_team()
        if team_name != link.team:
            raise ToolError(f"this session leads team {link.team!r}, not {team_name!r}")
        try:
            check_member_name(name)
        except Exception as e:
            raise ToolError(str(e)) from None
        if name == LEAD:
            raise ToolError(f"{LEAD} is the team's lead, not a teammate")
        members = {m.name: m for m in await asyncio.to_thread(link.store.members)}
        if name in members and alive(members[name]):
            raise ToolError(f"{name} is already a running member of team {link.team!r}")
        mode = self.mode()
        mate = Member(name=name, agent=agent, permission_mode=None if mode == "plan" else mode)
        await asyncio.to_thread(link.store.put_member, mate)
        await link.send(name, "message", prompt)
        store_args = ["--store", self.store_url] if self.store_url else []
        try:
            told = await asyncio.to_thread(
                start_members,
                self.project,
                link.store,
                [mate],
                store_args=store_args,
                plan=plan,
            )
        except ConfigError as e:  # its log cannot be written
            raise ToolError(str(e)) from None
        if not all(t.ok for t in told):
            raise ToolError("\n".join(t.line for t in told))
        return ToolOutput(
            text=f"Spawned teammate {name} ({agent}{', plan mode' if plan else ''}) in team "
            f"{link.team}: its messages will reach you as they come.",
            structured={
                "status": "teammate_spawned",
                "name": name,
                "team_name": link.team,
                "agent_type": agent,
                "mode": "plan" if plan else "default",
            },
        )

    def _timed_out(self, request: Message) -> None:
        """A request of the lead's got no reply in time: it waits no longer; its model is
        told (an error, steered in), and the user."""
        self.steer(timed_out(request))
        self._warn(
            f"team {self.team}: request {request.id} to {request.recipient} got no reply in "
            "time: no longer waited for"
        )

    def _warn(self, text: str) -> None:
        for warn in self.warnings:
            warn(text)

    def _need_team(self) -> TeamLink:
        if self.link is None:
            raise ToolError("you lead no team: create one with TeamCreate first")
        return self.link

    def _open(self, team: str) -> TeamStore:
        return open_team_store(self.store_url, project=self.project, team=team)

    async def _listen(self, inbox: TeamStore, link: TeamLink) -> None:
        """Read the lead's mailbox for ever (a store that cannot be reached is said once and
        tried again until it answers; one back without its data is said)."""

        def say(text: str) -> None:
            self._warn(f"team {link.team}: {text}")

        try:
            async for batch in receive_for_ever(
                inbox,
                LEAD,
                self._consumer,
                block_s=LEAD_RECEIVE_BLOCK_S,
                say=say,
                restore=link.publish,
            ):
                await self._took(batch, inbox, link)
        except (StoreDamaged, StoreLost) as e:
            say(f"{e}: its mail is no longer read here")

    async def _took(self, batch: list[Delivery], inbox: TeamStore, link: TeamLink) -> None:
        reap()
        if any(d.message.sender not in link.protocol.members for d in batch):
            await link.refresh_members()  # one who joined since is no stranger
        done = self._take(batch, link)
        if done:
            await asyncio.to_thread(inbox.ack, LEAD, done)
        if batch:  # the lead's state (a reply ends its waiting) and spend, to the roster
            await link.publish(spend_usd=self.spend())

    def _take(self, batch: list[Delivery], link: TeamLink) -> list[str]:
        """Steer the batch's new messages into the session; the receipts of those it holds
        already (to acknowledge)."""
        known = self.held()
        done = [r for i, r in self._unacked.items() if i in known]
        for delivery in batch:
            message = delivery.message
            if message.id in known:
                done.append(delivery.receipt)
                continue
            if message.id in self._unacked:
                continue
            self._unacked[message.id] = delivery.receipt
            received = link.protocol.incoming(message, link.clock())
            said = f"{message.kind}\0{message.text}".encode("utf-8", "surrogatepass")
            self._heard[message.sender] = hashlib.blake2b(said, digest_size=8).hexdigest()
            if message.kind == "idle_notification":
                link.working.discard(message.sender)
            self.steer(letter(message, received.note, answered=received.obeyed))
            for show in self.shown:
                show(message)
        self._unacked = {i: r for i, r in self._unacked.items() if i not in known}
        return done

    def rejoin(self, team: str, *, again: bool = True) -> str:
        """Lead again the team this session led (a resumed session: its file names it): its
        roster record taken back (the requests it waits on), the mail that came meanwhile
        (and what a killed run held) steered in now, its mailbox read from the first model
        call on (`start_listening`). Returns what to tell the user."""
        store = self._open(team)
        record = store.team_record()
        if record is None or record.lead != LEAD:
            store.close()
            return f"team {team!r}, which this session led, is no longer in {store.url}"
        if not any(m.name == LEAD for m in store.members()):
            store.put_member(Member(name=LEAD, state="idle"))
        me = claim_lead(store, LEAD)
        if isinstance(me, str):
            store.close()
            return (
                f"team {team} is led by another session that still runs ({me}): this session "
                "does not lead it, and the team's messages go to that one. To lead it from "
                "here, end that session (or let it finish), then continue this one again "
                "(--continue or --resume)"
            )
        self.link = TeamLink(
            team=team,
            member=LEAD,
            store=store,
            protocol=MemberProtocol(name=LEAD, lead=LEAD),
            events_path=events_file(self.project, team),
            known_team=record,
            known_member=me,
            warn=self._warn,
            events=self.events,
            on_timeout=[self._timed_out],
            session=self.session_id,
        )
        self.link.protocol.members = tuple(m.name for m in store.members())
        self.link.protocol.restore(
            me.requests_sent, me.requests_owed, self.link.clock(), me.requests_answered
        )
        self._inbox = self._open(team)
        # Everything held is taken back: a killed lead's run held it, and nobody else reads
        # the lead's mailbox.
        batch = self._inbox.receive(LEAD, self._consumer, reclaim_after_s=0)
        done = self._take(batch, self.link)
        if done:
            self._inbox.ack(LEAD, done)
        self.note({"team": team})
        which = f"{team} again" if again else team
        return f"leading team {which}: {len(batch)} message(s) waiting for it"

    def awaited(self) -> list[Awaited]:
        """What this lead waits on: the teammates it gave work to that have not said they are
        idle since, and those that owe it a reply, by name; each one's state is what it last
        said and how many replies it owes (the repeat guard takes a state seen before for no
        change, and a teammate with none new for a while for hung)."""
        if self.link is None:
            return []
        owed: dict[str, int] = {}
        for pending in self.link.protocol.pending.values():
            owed[pending.message.recipient] = owed.get(pending.message.recipient, 0) + 1
        return [
            Awaited(name, f"{self._heard.get(name, '')} owes {owed.get(name, 0)}")
            for name in sorted({*self.link.working, *owed})
        ]

    def start_listening(self) -> list[TextBlock]:
        """Start reading the mailbox of a team taken up again (`rejoin`), once a loop runs:
        an input of the session's model calls, giving nothing itself."""
        if self.link is not None and self._inbox is not None and self._listening is None:
            loop = asyncio.get_running_loop()
            self._listening = loop.create_task(self._listen(self._inbox, self.link))
            self._watching = loop.create_task(self.link.watch_deadlines())
        return []

    async def unanswered(self) -> str | None:
        """What a lead that stops now leaves open (whom it waits on: the board tasks its
        teammates and workers hold, its requests with no reply yet; those it has not
        answered), and how to take it up again; None when nothing is (`lead_exit`)."""
        if self.link is None:
            return None
        held = await asyncio.to_thread(
            held_tasks, self.project, self.store_url, self.link.team, {LEAD, self.board_owner}
        )
        return left_open(self.link.team, self.link.protocol, held, self.link.clock())

    @property
    def _consumer(self) -> str:
        return f"lead-{id(self)}"

    def written(self, entry: dict[str, object]) -> None:
        """An entry went into the session file: the team messages it holds are acknowledged
        now (their redelivery would be dropped by id), not at the next read, which a headless
        lead that exits never makes."""
        ids = written_ids(entry) & set(self._unacked)
        if not ids or self._inbox is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # written off the loop: acknowledged at the next read, or at close
        receipts = [self._unacked.pop(i) for i in ids]
        task = loop.create_task(self._ack(self._inbox, receipts))
        self._acking.add(task)
        task.add_done_callback(self._acking.discard)

    async def _ack(self, inbox: TeamStore, receipts: list[str]) -> None:
        try:
            await asyncio.to_thread(inbox.ack, LEAD, receipts)
        except StoreUnavailable as e:  # left held: redelivered, and dropped by id
            self._warn(f"team {self.team}: {len(receipts)} message(s) not acknowledged: {e}")

    async def close(self) -> None:
        if self._acking:
            await asyncio.gather(*self._acking, return_exceptions=True)
        if self.link is not None and self._inbox is not None:
            held = self.held()
            done = [r for i, r in self._unacked.items() if i in held]
            if done:
                await self._ack(self._inbox, done)
            with contextlib.suppress(Exception):  # its lease given up: another may lead
                await self.link.publish(spend_usd=self.spend(), pid=None, pid_started=None)
        for task in (self._listening, self._watching):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self.link is not None:
            await self.link.close()
        for store in (self._inbox, self.link.store if self.link else None):
            if store is not None:
                with contextlib.suppress(Exception):
                    store.close()
        self.link, self._inbox, self._listening, self._watching = None, None, None, None
