"""The mailbox and roster contract, run against SQLite and against a real Redis server: order,
durability, holding until acknowledged, redelivery, unread counts, entries that are not
messages, and the roster's records."""

from __future__ import annotations

import threading
import time

import pytest

from tether.store.mailbox import (
    Delivery,
    MailboxError,
    Member,
    Message,
    TeamExists,
    TeamRecord,
    TeamStore,
    UnknownMember,
)

from .mailbox_stores import OpenTeamStore, store_raw


def note(n: int, to: str = "bob", **extra: object) -> Message:
    return Message(id=f"m{n}", sender="lead", recipient=to, text=f"note {n}", sent_at=1.0, **extra)  # type: ignore[arg-type]


def test_messages_come_back_whole_in_the_order_sent(mailboxes: TeamStore) -> None:
    sent = [
        mailboxes.send(note(1)),
        mailboxes.send(note(2, kind="request", data={"plan": ["a", "b"]})),
        mailboxes.send(note(3, kind="reply", reply_to="r9")),
    ]
    mailboxes.send(note(4, to="carol"))
    got = mailboxes.receive("bob", "bob-1")
    assert [d.message for d in got] == sent
    assert [d.attempt for d in got] == [1, 1, 1]
    assert len({d.receipt for d in got}) == 3
    assert [d.message for d in mailboxes.receive("carol", "carol-1")] == [note(4, to="carol")]


def test_messages_are_kept_across_reopening(open_mailboxes: OpenTeamStore) -> None:
    first = open_mailboxes()
    for n in range(5):
        first.send(note(n))
    first.close()
    again = open_mailboxes()
    assert again.unread("bob") == 5
    assert [d.message.id for d in again.receive("bob", "bob-1")] == [f"m{n}" for n in range(5)]


def test_held_until_acknowledged_and_counted_unread(mailboxes: TeamStore) -> None:
    for n in range(4):
        mailboxes.send(note(n))
    first = mailboxes.receive("bob", "bob-1", max_count=3)
    assert [d.message.id for d in first] == ["m0", "m1", "m2"]
    # Held by bob-1: another consumer gets only what is left.
    assert [d.message.id for d in mailboxes.receive("bob", "bob-2")] == ["m3"]
    assert mailboxes.receive("bob", "bob-2") == []
    assert mailboxes.unread("bob") == 4
    mailboxes.ack("bob", [first[0].receipt, first[2].receipt])
    assert mailboxes.unread("bob") == 2
    assert mailboxes.unread("nobody") == 0


def test_a_message_held_too_long_goes_to_the_next_consumer(mailboxes: TeamStore) -> None:
    for n in range(3):
        mailboxes.send(note(n))
    held = mailboxes.receive("bob", "bob-1")
    mailboxes.ack("bob", [held[1].receipt])
    again = mailboxes.receive("bob", "bob-2", reclaim_after_s=0)
    assert [(d.message.id, d.attempt) for d in again] == [("m0", 2), ("m2", 2)]
    # Acknowledged by both the first consumer (late) and its successor: handled, once.
    mailboxes.ack("bob", [held[0].receipt, held[2].receipt])
    mailboxes.ack("bob", [d.receipt for d in again])
    assert mailboxes.unread("bob") == 0
    assert mailboxes.receive("bob", "bob-3", reclaim_after_s=0) == []


def test_an_acknowledged_message_is_never_handed_out_again(mailboxes: TeamStore) -> None:
    mailboxes.send(note(1))
    (got,) = mailboxes.receive("bob", "bob-1")
    mailboxes.ack("bob", [got.receipt])
    mailboxes.send(note(2))
    assert [d.message.id for d in mailboxes.receive("bob", "bob-2", reclaim_after_s=0)] == ["m2"]


def test_a_receipt_the_store_never_gave_is_refused(mailboxes: TeamStore) -> None:
    with pytest.raises(MailboxError, match=r"not a receipt of this store: 'x-1'"):
        mailboxes.ack("bob", ["x-1"])


def test_a_waiting_receive_gets_a_message_sent_meanwhile(open_mailboxes: OpenTeamStore) -> None:
    receiver, sender = open_mailboxes(), open_mailboxes()
    assert receiver.receive("bob", "bob-1", block_s=0.05) == []
    got: list[Delivery] = []
    waiting = threading.Thread(target=lambda: got.extend(receiver.receive("bob", "b", block_s=60)))
    waiting.start()
    sender.send(note(7))
    waiting.join()
    assert [d.message for d in got] == [note(7)]


def test_an_entry_that_is_not_a_message_is_handed_over_as_invalid(
    mailboxes: TeamStore, mailbox_url: str, team: str
) -> None:
    mailboxes.send(note(1))
    store_raw(mailbox_url, team, "bob", '{"sender": "lead", "recip')
    store_raw(mailbox_url, team, "bob", '{"sender": "lead"}')
    mailboxes.send(note(2))
    got = mailboxes.receive("bob", "bob-1")
    assert [d.message.kind for d in got] == ["message", "invalid", "invalid", "message"]
    broken, partial = got[1], got[2]
    assert broken.message.model_dump(exclude={"data"}) == {
        "id": f"invalid:{broken.receipt}",
        "sender": "",
        "recipient": "bob",
        "kind": "invalid",
        "text": '{"sender": "lead", "recip',
        "reply_to": None,
        "sent_at": 0.0,
    }
    assert broken.message.data == {
        "error": f"stored entry {broken.receipt} in bob's mailbox is not valid JSON "
        "(EOF while parsing a string at line 1 column 25)"
    }
    assert partial.message.data == {
        "error": f"stored entry {partial.receipt} in bob's mailbox is not a message "
        "(recipient: Field required)"
    }
    # Kept like any other until acknowledged, its id the same on every redelivery.
    again = mailboxes.receive("bob", "bob-2", reclaim_after_s=0)
    assert [d.message.id for d in again] == [d.message.id for d in got]
    mailboxes.ack("bob", [d.receipt for d in again])
    assert mailboxes.unread("bob") == 0


def test_an_entry_that_is_not_utf8_is_handed_over_as_invalid_and_mail_after_it_comes(
    mailboxes: TeamStore, mailbox_url: str, team: str
) -> None:
    """Bytes that are not UTF-8 (a BLOB, or text that holds them) are an invalid entry like
    any other: the receiver is told, and nothing after it is held up (it crashed the reader)."""
    store_raw(mailbox_url, team, "bob", b"\xff\xfe{bad")
    store_raw(mailbox_url, team, "bob", b'{"text": "\xe9t\xe9"}', as_text=True)
    mailboxes.send(note(1))
    got = mailboxes.receive("bob", "bob-1")
    assert [d.message.kind for d in got] == ["invalid", "invalid", "message"]
    for bad in got[:2]:
        assert bad.message.data == {
            "error": f"stored entry {bad.receipt} in bob's mailbox is not UTF-8 text"
        }
    assert got[0].message.text == "\ufffd\ufffd{bad"
    assert got[2].message == note(1)
    mailboxes.ack("bob", [d.receipt for d in got])
    assert mailboxes.unread("bob") == 0


def test_teams_keep_apart(open_mailboxes: OpenTeamStore, team: str) -> None:
    ours, theirs = open_mailboxes(), open_mailboxes(f"{team}-other")
    ours.send(note(1))
    assert theirs.receive("bob", "bob-1") == []
    assert theirs.unread("bob") == 0
    assert ours.unread("bob") == 1


def test_a_team_is_created_once(mailboxes: TeamStore, team: str) -> None:
    assert mailboxes.team_record() is None
    record = TeamRecord(name=team, lead="lead", description="port the parser", created_at=0.0)
    assert mailboxes.create_team(record) == record
    assert mailboxes.team_record() == record
    with pytest.raises(TeamExists) as caught:
        mailboxes.create_team(TeamRecord(name=team))
    assert str(caught.value) == (
        f"team {team!r} exists (lead 'lead', created 1970-01-01 00:00:00 UTC): pick another name"
    )
    with pytest.raises(MailboxError, match=rf"this store holds team {team!r}: cannot create"):
        mailboxes.create_team(TeamRecord(name="other"))


def test_members_are_kept_in_the_order_they_joined(mailboxes: TeamStore) -> None:
    alice = Member(name="alice", agent="explorer", model="m1", prompt="look", updated_at=1.0)
    bob = Member(name="bob", agent="writer", cwd="/tmp/x", worktree=True, updated_at=1.0)
    mailboxes.put_member(bob)
    mailboxes.put_member(alice)
    replaced = bob.model_copy(update={"prompt": "write it"})
    mailboxes.put_member(replaced)
    assert mailboxes.members() == [replaced, alice]


def test_a_member_changes_one_field_at_a_time(open_mailboxes: OpenTeamStore) -> None:
    store = open_mailboxes()
    store.put_member(Member(name="alice", state="idle"))
    changed = store.update_member(
        "alice", {"state": "waiting", "pending_request": "r1", "spend_usd": 0.25}
    )
    assert (changed.state, changed.pending_request, changed.spend_usd) == ("waiting", "r1", 0.25)
    assert open_mailboxes().members() == [changed]
    with pytest.raises(MailboxError, match=r"member 'alice': state: Input should be 'starting'"):
        store.update_member("alice", {"state": "asleep"})
    with pytest.raises(MailboxError, match=r"member 'alice': no field 'mood'"):
        store.update_member("alice", {"mood": "fine"})
    assert store.members() == [changed]


def test_a_message_sent_with_its_senders_state_stores_both_or_neither(
    open_mailboxes: OpenTeamStore,
) -> None:
    store = open_mailboxes()
    store.put_member(Member(name="lead", state="responding"))
    store.send_as(note(1), {"state": "idle"})
    assert [d.message.id for d in store.receive("bob", "c1")] == ["m1"]
    assert [m.state for m in open_mailboxes().members()] == ["idle"]
    with pytest.raises(MailboxError, match=r"member 'lead': state: Input should be"):
        store.send_as(note(2), {"state": "asleep"})  # refused: the message is not stored
    assert store.unread("bob") == 1
    store.delete_team()
    store.send_as(note(4), {"state": "idle"})  # a sender with no record: the message alone
    assert [d.message.id for d in store.receive("bob", "c1")] == ["m4"]


def test_a_wait_on_the_roster_ends_with_the_change_it_waits_for(
    open_mailboxes: OpenTeamStore,
) -> None:
    store, other = open_mailboxes(), open_mailboxes()
    store.put_member(Member(name="alice", state="starting"))

    def idle(members: list[Member]) -> bool:
        return any(m.state == "idle" for m in members)

    assert store.wait_members(idle, 0.05, recheck_s=0.01) is False
    changing = threading.Timer(0.1, lambda: other.update_member("alice", {"state": "idle"}))
    changing.start()
    assert store.wait_members(idle, 60.0, recheck_s=60.0) is True  # woken by the change
    changing.join()


def test_an_unknown_member_is_refused_naming_the_members(mailboxes: TeamStore, team: str) -> None:
    with pytest.raises(UnknownMember) as caught:
        mailboxes.update_member("zed", {"state": "idle"})
    assert str(caught.value) == f"no member 'zed' in team {team!r} (members: none yet)"
    mailboxes.put_member(Member(name="alice"))
    mailboxes.put_member(Member(name="bob"))
    with pytest.raises(UnknownMember) as caught:
        mailboxes.update_member("zed", {"state": "idle"})
    assert str(caught.value) == f"no member 'zed' in team {team!r} (members: alice, bob)"


def test_deleting_a_team_removes_its_members_and_mailboxes(
    open_mailboxes: OpenTeamStore, team: str
) -> None:
    store, other = open_mailboxes(), open_mailboxes(f"{team}-other")
    store.create_team(TeamRecord(name=team))
    store.put_member(Member(name="alice"))
    store.send(note(1, to="alice"))
    other.send(note(2, to="alice"))
    store.delete_team()
    assert (store.team_record(), store.members(), store.unread("alice")) == (None, [], 0)
    assert other.unread("alice") == 1
    store.create_team(TeamRecord(name=team))
    store.send(note(3, to="alice"))
    assert [d.message.id for d in store.receive("alice", "a")] == ["m3"]


def test_a_message_held_too_long_is_found_behind_many_held_since(mailboxes: TeamStore) -> None:
    for n in range(40):
        mailboxes.send(note(n))
    first = mailboxes.receive("bob", "bob-1", max_count=40)
    time.sleep(1.0)  # what bob-1 holds is a second old: the only way to age a hold
    mailboxes.receive("bob", "bob-2", max_count=30, reclaim_after_s=0)  # m0..m29 held anew
    got = mailboxes.receive("bob", "bob-3", max_count=1, reclaim_after_s=0.9)
    assert [(d.message.id, d.attempt) for d in got] == [("m30", 2)]
    assert len(first) == 40


def test_a_receive_waiting_while_its_team_is_deleted_goes_on(
    open_mailboxes: OpenTeamStore, team: str
) -> None:
    receiver, lead = open_mailboxes(), open_mailboxes()
    receiver.send(note(1))
    receiver.ack("bob", [d.receipt for d in receiver.receive("bob", "bob-1")])
    got: list[Delivery] = []
    failed: list[BaseException] = []

    def wait() -> None:
        try:
            got.extend(receiver.receive("bob", "bob-1", block_s=60))
        except BaseException as e:  # the test's thread: what it raised is asserted below
            failed.append(e)

    waiting = threading.Thread(target=wait)
    waiting.start()
    lead.delete_team()
    lead.send(note(2))
    waiting.join()
    assert (failed, [d.message for d in got]) == ([], [note(2)])


def test_requests_a_store_cannot_do_are_refused_saying_why(mailboxes: TeamStore) -> None:
    with pytest.raises(MailboxError, match=r"^a message needs a recipient$"):
        mailboxes.send(Message(sender="lead", recipient=""))
    with pytest.raises(MailboxError, match=r"^a member needs a name$"):
        mailboxes.put_member(Member(name=" "))
    with pytest.raises(MailboxError, match=r"^max_count must be at least 1, not 0$"):
        mailboxes.receive("bob", "bob-1", max_count=0)
    mailboxes.put_member(Member(name="alice"))
    with pytest.raises(MailboxError, match=r"^member 'alice': a member's name cannot change$"):
        mailboxes.update_member("alice", {"name": "bob"})
    assert (mailboxes.unread(""), [m.name for m in mailboxes.members()]) == (0, ["alice"])


def test_an_entry_with_no_message_in_it_is_said_plainly() -> None:
    from tether.store.mailbox_records import read_stored

    assert read_stored(None, receipt="5-0", member="bob").data == {
        "error": "stored entry 5-0 in bob's mailbox has no message in it (no data field)"
    }


def test_a_store_error_ends_without_a_full_stop_so_more_can_follow() -> None:
    from tether.store.task_records import StoreUnavailable

    error = StoreUnavailable("mailbox store redis://127.0.0.1:1: Connection closed by server.")
    assert f"{error}: trying again" == (
        "mailbox store redis://127.0.0.1:1: Connection closed by server: trying again"
    )


def test_a_waiting_receive_takes_back_a_hold_that_runs_out_while_it_waits(
    mailboxes: TeamStore,
) -> None:
    """A successor waiting on an empty mailbox gets a killed consumer's messages once their
    hold runs out, within its wait: not only at its next look (Redis waited a whole block
    chunk, 10 s, on new entries before it looked again)."""
    for n in range(3):
        mailboxes.send(Message(id=f"m{n}", sender="lead", recipient="alice"))
    assert len(mailboxes.receive("alice", "dead")) == 3
    got = mailboxes.receive("alice", "next", block_s=6.0, reclaim_after_s=2.0)
    assert [(d.message.id, d.attempt) for d in got] == [("m0", 2), ("m1", 2), ("m2", 2)]
