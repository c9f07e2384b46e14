"""A message posted again under its id (a teammate's SendMessage run again after its process
was killed) is stored once, on SQLite and on a real Redis server: read or not meanwhile, sent
with its sender's state or alone, by two connections at once."""

from __future__ import annotations

import threading

from tether.store.mailbox import Member, Message

from .mailbox_stores import OpenTeamStore


def note(n: int, to: str = "bob") -> Message:
    return Message(id=f"m{n}", sender="lead", recipient=to, text=f"note {n}", sent_at=1.0)


def test_a_message_sent_again_under_its_id_is_stored_once(open_mailboxes: OpenTeamStore) -> None:
    store, other = open_mailboxes(), open_mailboxes()
    assert not store.posted("lead", "m1")
    store.send(note(1))
    other.send(note(1))  # another process's rerun
    got = store.receive("bob", "c1")
    assert ([d.message for d in got], store.posted("lead", "m1"), other.posted("lead", "m1")) == (
        [note(1)],
        True,
        True,
    )
    store.ack("bob", [d.receipt for d in got])
    other.send(note(1))  # read and acknowledged meanwhile: still known
    store.send(note(2))
    assert [d.message for d in store.receive("bob", "c1")] == [note(2)]
    assert store.unread("bob") == 1


def test_a_message_sent_again_with_its_senders_state_changes_nothing(
    open_mailboxes: OpenTeamStore,
) -> None:
    store = open_mailboxes()
    store.put_member(Member(name="lead", state="responding"))
    store.send_as(note(1), {"state": "idle"})
    store.update_member("lead", {"state": "waiting"})  # it went on after the first post
    open_mailboxes().send_as(note(1), {"state": "idle"})  # the rerun: skipped whole
    assert [d.message for d in store.receive("bob", "c1")] == [note(1)]
    assert [m.state for m in open_mailboxes().members()] == ["waiting"]


def test_two_posts_of_one_id_at_once_store_one(open_mailboxes: OpenTeamStore) -> None:
    stores = [open_mailboxes() for _ in range(4)]
    barrier = threading.Barrier(len(stores))

    def post(n: int) -> None:
        barrier.wait()
        for i in range(20):
            stores[n].send(note(i))

    threads = [threading.Thread(target=post, args=(n,)) for n in range(len(stores))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    got = stores[0].receive("bob", "c1", max_count=100)
    assert sorted(d.message.id for d in got) == sorted(f"m{i}" for i in range(20))


def test_a_team_made_again_under_its_name_holds_no_earlier_id(
    open_mailboxes: OpenTeamStore,
) -> None:
    store = open_mailboxes()
    store.send(note(1))
    store.delete_team()
    assert not store.posted("lead", "m1")
    open_mailboxes().send(note(1))  # the new team's own message m1
    assert [d.message for d in store.receive("bob", "c1")] == [note(1)]


def test_a_message_of_another_sender_under_a_held_id_is_its_own(
    open_mailboxes: OpenTeamStore,
) -> None:
    """An id is skipped only when its sender posted it: two senders' messages that share an
    id (their models numbered their calls alike) are both stored (the second was dropped)."""
    store = open_mailboxes()
    alices, bobs = (
        Message(id="call-1", sender=name, recipient="lead", text=f"{name}'s", sent_at=1.0)
        for name in ("alice", "bob")
    )
    store.send(alices)
    open_mailboxes().send_as(bobs, {"state": "idle"})
    store.send(alices)  # alice's rerun: hers is held
    assert (
        [d.message for d in store.receive("lead", "c1")],
        store.posted("alice", "call-1"),
        store.posted("bob", "call-1"),
        store.posted("carol", "call-1"),
    ) == ([alices, bobs], True, True, False)
