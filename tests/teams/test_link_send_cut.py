"""A send the store cuts part way, on SQLite and on a real Redis server. A broadcast is
stored one recipient at a time: cut at the k-th, the error names who holds the message and
who does not (it said "not stored" of them all), and the model's resend of the same message
goes to those that lack it only (a new call's new ids gave it twice to the others). A send
whose stored answer was lost is not doubled by its resend either.

The store is the real one, behind a gate that stops answering for chosen recipients (a store
that went away between two recipients, at a moment no timing could pick)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tether.store.mailbox import Member, Message, TeamRecord, TeamStore, open_team_store
from tether.store.task_records import StoreUnavailable
from tether.teams.cut_sends import PartlySent
from tether.teams.link import TeamLink
from tether.teams.patience import Patience
from tether.teams.protocol import MemberProtocol
from tether.teams.receiving import StorePatienceOut


class Gate:
    """The real store, except that sends to `down` do not get through (`lost`: they are
    stored, and the answer is lost on its way back)."""

    def __init__(self, inner: TeamStore) -> None:
        self.inner, self.down, self.lost = inner, set[str](), set[str]()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def send(self, message: Message) -> Message:
        if message.recipient in self.down:
            raise StoreUnavailable("mailbox store: connection reset")
        self.inner.send(message)
        if message.recipient in self.lost:
            raise StoreUnavailable("mailbox store: connection reset")
        return message


@pytest.fixture(params=["sqlite", "redis"])
def gate(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Gate]:
    url = None if request.param == "sqlite" else str(request.getfixturevalue("redis_url"))
    store = open_team_store(url, project=tmp_path, team="t")
    store.create_team(TeamRecord(name="t", lead="team-lead"))
    for name in ("team-lead", "alice", "bob", "carol"):
        store.put_member(Member(name=name, state="idle"))
    yield Gate(store)
    store.delete_team()
    store.close()


def alice(gate: Gate) -> TeamLink:
    return TeamLink(
        team="t",
        member="alice",
        store=gate,  # pyright: ignore[reportArgumentType]
        protocol=MemberProtocol(name="alice", lead="team-lead"),
        session="s-1",
        patience=Patience(gate.inner.url, 0.3, lambda _: None),
    )


def inboxes(store: TeamStore) -> dict[str, list[str]]:
    return {
        name: [d.message.text for d in store.receive(name, "c1", max_count=100)]
        for name in ("team-lead", "bob", "carol")
    }


async def test_a_broadcast_cut_part_way_names_who_has_it_and_its_resend_doubles_nothing(
    gate: Gate,
) -> None:
    link = alice(gate)
    gate.down.add("carol")
    with pytest.raises(PartlySent) as cut:
        await link.send("*", "message", "hello all", call_id="call_1")
    held = inboxes(gate.inner)
    gate.down.clear()  # the store answers again; the model sends the same message again
    sent = await link.send("*", "message", "hello all", call_id="call_2")
    assert (
        [m.recipient for m in cut.value.stored],
        [m.recipient for m in cut.value.not_stored],
        str(cut.value),
        held,
        [m.id for m in sent],
        inboxes(gate.inner),
    ) == (
        ["team-lead", "bob"],
        ["carol"],
        f"sent to team-lead, bob; not sent to carol: mailbox store {gate.inner.url} has not "
        "answered for 0.3 s; send the same message again once the store answers: it goes "
        "to carol only",
        {"team-lead": ["hello all"], "bob": ["hello all"], "carol": []},
        [m.id for m in cut.value.stored + cut.value.not_stored],
        {"team-lead": [], "bob": [], "carol": ["hello all"]},
    )
    await link.close()


async def test_a_send_whose_answer_was_lost_is_stored_once_when_sent_again(gate: Gate) -> None:
    link = alice(gate)
    gate.lost.add("bob")
    with pytest.raises(StorePatienceOut):
        await link.send("bob", "message", "p1 done", call_id="call_1")
    gate.lost.clear()
    await link.send("bob", "message", "p1 done", call_id="call_2")
    await link.send("bob", "message", "p1 done", call_id="call_3")  # sent, so a new one
    assert inboxes(gate.inner) == {"team-lead": [], "bob": ["p1 done", "p1 done"], "carol": []}
    await link.close()
