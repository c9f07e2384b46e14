"""The lead's side of a team for the person who runs it from the command line.

    tether team inbox NAME [--follow] [--json]     what teammates sent the lead, marked read
    tether team send NAME MEMBER TEXT --wait       a request, and the reply that answers it
    tether team send NAME MEMBER TEXT --reply-to ID    the lead's reply to a teammate's request
    tether team send NAME MEMBER --approve-plan [--plan-id ID]   a plan_approval_response: approved
    tether team send NAME MEMBER [WHY] --reject-plan [--plan-id ID]   ... rejected, saying why

Each message is printed (and stdout flushed) before it is acknowledged: one killed between
the two is shown again the next time, never lost (at least once, as every mailbox). While it
reads, this process holds the lead's record as a lead session does (`claim_lead`), so a
lead session that runs meanwhile is refused, and a running one refuses it: one reader of the
lead's mail at a time. `--json`: one message a line (JSON Lines), as the store keeps it.

Each of them is the lead in the protocol, as a lead session is (`TeamLink`): its requests and
owed replies are taken from its roster record, a request sent makes it `waiting` (a second one
meanwhile is refused), the reply (or its timeout) makes it idle, a teammate's request read
makes it owe the reply; each change is written to the roster (`team status`) and to the team's
event log, so a lead session that continues the team later knows what it waits on and owes.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable, Generator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from tether.cli.team_cmd import no_team
from tether.cli.terminal_text import terminal_safe
from tether.protocol import ConfigError
from tether.store.mailbox import Delivery, Member, Message, TeamStore
from tether.teams.claims import claim_lead
from tether.teams.link import TeamLink, events_file
from tether.teams.patience import Patience
from tether.teams.protocol import MemberProtocol, ProtocolError

T = TypeVar("T")

LEAD = "team-lead"
COMMAND_PATIENCE_S = 5.0
"""How long a command's send waits for a store out of reach, trying again, before it says so."""
BLOCK_S = 2.0
"""The longest one read of the mailbox waits (`--follow`, `send --wait`)."""
HELD_S = 3600.0
"""After the first read (which takes back all a killed reader held), what this reader holds is
not handed back to it."""


@contextmanager
def leading(store: TeamStore, project: Path) -> Generator[TeamLink]:
    """The lead's record held by this process while it acts as the lead, and its end of the
    protocol (`TeamLink`), taken up from the record; `ConfigError` when a live lead session
    (or another reader) holds it."""
    record = store.team_record()
    if record is None:
        raise ConfigError(no_team(store.team, store.url))
    me = claim_lead(store, LEAD)
    if isinstance(me, str):
        raise ConfigError(
            f"the lead of team {store.team} is a running session ({me}): its messages go to "
            "that session, not here"
        )
    try:
        yield _link(store, project, me, record.lead)
    finally:
        store.update_member(LEAD, {"pid": None, "pid_started": None})


def as_lead(store: TeamStore, project: Path, work: Callable[[TeamLink], Awaitable[T]]) -> T:
    """`work` done as the lead (`leading`), on one event loop, its link closed after it."""

    async def run(link: TeamLink) -> T:
        try:
            return await work(link)
        finally:
            await link.close()

    with leading(store, project) as link:
        return asyncio.run(run(link))


def _link(store: TeamStore, project: Path, me: Member, lead: str) -> TeamLink:
    protocol = MemberProtocol(name=LEAD, lead=lead, members=tuple(m.name for m in store.members()))
    # taken back before the link listens: the same state again is no transition to log
    protocol.restore(me.requests_sent, me.requests_owed, time.time(), me.requests_answered)

    def warn(line: str) -> None:
        print(f"tether: {terminal_safe(line)}", file=sys.stderr)

    return TeamLink(
        team=store.team,
        member=LEAD,
        store=store,
        protocol=protocol,
        events_path=events_file(project, store.team),
        known_member=me,
        warn=warn,
        # A person at a command is told soon, not after a teammate's 600 s.
        patience=Patience(store.url, COMMAND_PATIENCE_S, warn),
    )


def read_inbox(store: TeamStore, project: Path, *, follow: bool, as_json: bool) -> int:
    """Print every message for the lead, oldest first, each acknowledged once printed;
    `follow`: then those that come, until interrupted."""
    try:
        shown = as_lead(store, project, lambda link: _read(link, follow, as_json))
    except KeyboardInterrupt:  # --follow ends so; one printed, not acknowledged: again
        return 130
    if not shown and not as_json:
        print(f"no unread message for the lead of team {store.team}", file=sys.stderr)
    return 0


async def _read(link: TeamLink, follow: bool, as_json: bool) -> int:
    consumer = f"inbox-{link.team}"
    reclaim = 0.0  # the first read takes back what a killed reader held
    shown = 0
    while True:
        batch = await asyncio.to_thread(
            link.store.receive,
            LEAD,
            consumer,
            block_s=BLOCK_S if follow else 0.0,
            reclaim_after_s=reclaim,
        )
        reclaim = HELD_S
        if batch:
            await _show(link, batch, as_json)
            shown += len(batch)
        elif not follow:
            return shown


def ask(
    store: TeamStore, project: Path, member: str, text: str, *, timeout_s: float, as_json: bool
) -> int:
    """Send `member` a request as the lead and print the reply that answers it (its
    `reply_to`) once it comes, acknowledged once printed; other messages stay unread for
    `team inbox`. 1 when none came within `timeout_s` (the request's own timeout: the lead is
    idle again, and a late reply is matched to it by `team inbox` or a lead session)."""
    return as_lead(store, project, lambda link: _ask(link, member, text, timeout_s, as_json))


async def _ask(link: TeamLink, member: str, text: str, timeout_s: float, as_json: bool) -> int:
    try:
        (request,) = await link.send(member, "request", text, timeout_s=timeout_s)
    except ProtocolError as e:
        waiting = link.protocol.waiting_on()
        if waiting is not None and await asyncio.to_thread(_replied, link, waiting.message.id):
            asked = waiting.message
            raise ConfigError(
                f"{e}: the reply from {asked.recipient} to {asked.id} has come (a `team send "
                f"--wait` ended before it showed it): read it with `tether team inbox "
                f"{link.team}`, then send again"
            ) from None
        raise ConfigError(str(e)) from None
    print(f"sent {request.id} to {member}", file=sys.stderr, flush=True)
    consumer = f"wait-{request.id}"
    reclaim = 0.0
    while (waiting := link.protocol.pending.get(request.id)) is not None:
        left = BLOCK_S if waiting.deadline is None else waiting.deadline - link.clock()
        if left > 0:
            batch = await asyncio.to_thread(
                link.store.receive,
                LEAD,
                consumer,
                block_s=min(BLOCK_S, left),
                reclaim_after_s=reclaim,
            )
            reclaim = HELD_S  # the others it held stay held (unread), not handed back each read
            answer = [d for d in batch if d.message.reply_to == request.id]
            if answer:
                await _show(link, answer, as_json)
                return 0
        link.expire_due()
    await link.publish()  # timed out: idle again, in the roster too
    print(
        f"no reply from {request.recipient} to {request.id} within {timeout_s:g} s: it goes "
        f"to the lead's mailbox when it comes (tether team inbox {link.team})",
        file=sys.stderr,
    )
    return 1


def _replied(link: TeamLink, request_id: str) -> bool:
    """Whether the reply to the lead's `request_id` is in its mailbox, unread: looked at,
    not taken (not acknowledged; `team inbox`'s first read takes back what any reader held)."""
    batch = link.store.receive(LEAD, f"look-{request_id}", block_s=0.0, reclaim_after_s=0.0)
    return any(d.message.reply_to == request_id for d in batch)


def reply(store: TeamStore, project: Path, member: str, text: str, reply_to: str) -> int:
    """The lead's reply to `member`'s request `reply_to` (read with `team inbox`), checked by
    the protocol as a lead session's would be."""

    async def send(link: TeamLink) -> Message:
        try:
            (sent,) = await link.send(member, "reply", text, reply_to=reply_to)
        except ProtocolError as e:
            if _kind_asked(link, member, reply_to) == "plan_approval_request":
                hint = (
                    f"tether team send {link.team} {member} --approve-plan --plan-id {reply_to}, "
                    f'or tether team send {link.team} {member} "why" --reject-plan '
                    f"--plan-id {reply_to}"
                )
                raise ConfigError(f"{e}: {hint}") from None
            raise ConfigError(str(e)) from None
        return sent

    print(f"sent {as_lead(store, project, send).id} to {member}")
    return 0


def _kind_asked(link: TeamLink, member: str, request_id: str) -> str | None:
    """The kind of `member`'s request `request_id`: as the lead read it, else as its sender's
    record keeps it (one the lead has not read yet)."""
    asked = link.protocol.owed.get(request_id)
    if asked is not None:
        return asked.kind
    record = next((m for m in link.store.members() if m.name == member), None)
    held = [h.message for h in record.requests_sent] if record is not None else []
    return next((m.kind for m in held if m.id == request_id), None)


def answer_plan(
    store: TeamStore,
    project: Path,
    member: str,
    *,
    approve: bool,
    request_id: str | None,
    feedback: str | None,
) -> int:
    """The lead's plan_approval_response to `member`'s plan_approval_request `request_id`
    (none named: its one plan awaiting approval), approving it (the teammate leaves plan mode)
    or rejecting it with `feedback` (None: none given). A request still unread in the lead's
    mailbox is taken in first; it is printed and acknowledged (answering it is reading it)
    only once the answer is checked: a refused command leaves it unread. Other mail stays
    unread."""

    async def send(link: TeamLink) -> Message:
        plans = await _plans_unread(link, member)
        for delivery in plans:
            link.protocol.incoming(delivery.message, link.clock())
        asked = _plan_request(link, member, request_id, feedback)
        data: dict[str, object] = {"approve": approve}
        if feedback:
            data["feedback"] = feedback.strip()
        if plans:
            await _show(link, plans, as_json=False, taken=True)
        try:
            (sent,) = await link.send(
                member, "plan_approval_response", reply_to=asked.id, data=data
            )
        except ProtocolError as e:
            raise ConfigError(str(e)) from None
        return sent

    sent = as_lead(store, project, send)
    said = "approved" if approve else "rejected"
    print(f"sent {sent.id} to {member}: plan {sent.reply_to} {said}")
    return 0


async def _plans_unread(link: TeamLink, member: str) -> list[Delivery]:
    batch = await asyncio.to_thread(
        link.store.receive, LEAD, f"plans-{link.team}", max_count=256, reclaim_after_s=0.0
    )
    return [
        d for d in batch if d.message.kind == "plan_approval_request" and d.message.sender == member
    ]


def _plan_request(
    link: TeamLink, member: str, request_id: str | None, feedback: str | None
) -> Message:
    """The plan request of `member`'s the lead answers; `ConfigError` saying why none is. An
    id given as the text (`--approve-plan ID`, `--approve-plan "$ID"` with no ID) is refused:
    the flags take no value, and taking the one plan waiting instead answers a plan unseen."""
    owed = [
        m
        for m in link.protocol.owed.values()
        if m.kind == "plan_approval_request" and m.sender == member
    ]
    listed = ", ".join(m.id for m in owed)
    waiting = f"awaiting approval: {listed}" if owed else "none awaits approval"
    given = (feedback or "").strip()
    if feedback is not None and not given:
        raise ConfigError(
            f"an empty text given with the plan's answer: --approve-plan and --reject-plan "
            f"take no value, --plan-id ID names {member}'s plan ({waiting})"
        )
    if given in link.protocol.answered or any(m.id == given for m in owed):
        raise ConfigError(
            f"{given} is a plan request's id, given as the text: --approve-plan and "
            f"--reject-plan take no value; name the plan with --plan-id {given}"
        )
    if request_id is not None:
        found = link.protocol.owed.get(request_id)
        if found is not None and found in owed:
            return found
        if request_id in link.protocol.answered:
            raise ConfigError(f"plan request {request_id} has been answered already")
        if not request_id.strip():
            raise ConfigError(f"an empty plan id (--plan-id) for {member}'s plan ({waiting})")
    elif len(owed) == 1:
        return owed[0]
    if not owed:
        why = f"{member} has no plan awaiting the lead's approval"
    elif request_id is not None:
        why = f"{request_id} is not a plan request of {member}'s awaiting approval ({listed})"
    else:
        why = f"{member} has {len(owed)} plans awaiting approval ({listed}): name one"
    raise ConfigError(why)


async def _show(
    link: TeamLink, batch: list[Delivery], as_json: bool, *, taken: bool = False
) -> None:
    """Print the batch, then take it into the lead's protocol (a reply ends its waiting, a
    request is owed its answer; `taken`: it is already), its state written to the roster, then
    acknowledge it."""
    render: Callable[[Message], str] = _json_line if as_json else _text
    for delivery in batch:
        print(render(delivery.message))
    sys.stdout.flush()
    for delivery in [] if taken else batch:
        link.protocol.incoming(delivery.message, link.clock())
    link.expire_due()
    await link.publish()
    await asyncio.to_thread(link.store.ack, LEAD, [d.receipt for d in batch])


def _json_line(message: Message) -> str:
    return json.dumps(message.model_dump(mode="json"), ensure_ascii=False)


def _text(message: Message) -> str:
    when = time.strftime("%H:%M:%S", time.localtime(message.sent_at))
    head = f"{when} {message.sender} ({message.kind} {message.id}"
    head += f", reply to {message.reply_to})" if message.reply_to else ")"
    body = [message.text] if message.text else []
    body += [f"{k}: {v}" for k, v in message.data.items() if k != "summary"]
    lines = "\n".join(f"  {line}" for part in body for line in part.splitlines())
    return terminal_safe(f"{head}\n{lines}" if lines else head)
