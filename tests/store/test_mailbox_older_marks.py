"""A store an older tether wrote marks a posted id by the id alone (SQLite's `posted` table,
Redis's `posted:<id>` keys). A teammate killed inside its SendMessage under that code, after
its message was stored, runs the call again under this one: the older mark still says the
message is stored (it was stored twice), on SQLite and on a real Redis server. The mark is
its message's sender's while that message waits; `delete_team` drops it with the team."""

from __future__ import annotations

import sqlite3

from tether.store.mailbox import Message, TeamStore
from tether.store.mailbox_records import stored

from .mailbox_stores import OpenTeamStore


def reply(sender: str = "alice", text: str = "alice got: c1") -> Message:
    return Message(id="519de951", sender=sender, recipient="lead", text=text, sent_at=1.0)


def stored_by_older_code(url: str, team: str, message: Message, *, keep: bool = True) -> None:
    """Store `message` with the mark the older code wrote (`keep` False: the recipient has
    read and acknowledged it since)."""
    if url.startswith("redis://"):
        import redis

        client = redis.Redis.from_url(url)
        prefix = f"tether:{{{team}}}:"
        client.set(f"{prefix}posted:{message.id}", "1")
        if keep:
            client.sadd(f"{prefix}mailboxes", message.recipient)
            client.xgroup_create(f"{prefix}mailbox:{message.recipient}", "readers", mkstream=True)
            client.xadd(f"{prefix}mailbox:{message.recipient}", {"data": stored(message)})
        client.close()
        return
    db = sqlite3.connect(url)
    db.execute(
        "CREATE TABLE IF NOT EXISTS posted "
        "(team TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (team, id))"
    )
    db.execute("INSERT INTO posted VALUES (?, ?)", (team, message.id))
    if keep:
        db.execute(
            "INSERT INTO mailbox (team, member, data) VALUES (?, ?, ?)",
            (team, message.recipient, stored(message)),
        )
    db.commit()
    db.close()


def older_marks_left(url: str, team: str) -> int:
    """How many older marks of the team the store still holds."""
    if url.startswith("redis://"):
        import redis

        client = redis.Redis.from_url(url)
        left = len(list(client.scan_iter(match=f"tether:{{{team}}}:posted:*")))
        client.close()
        return left
    db = sqlite3.connect(url)
    (left,) = db.execute("SELECT COUNT(*) FROM posted WHERE team = ?", (team,)).fetchone()
    db.close()
    return int(left)


def lead_reads(store: TeamStore) -> list[Message]:
    return [d.message for d in store.receive("lead", "c1", max_count=100)]


def test_a_rerun_of_a_message_the_older_code_stored_is_not_stored_again(
    open_mailboxes: OpenTeamStore, mailbox_url: str, team: str
) -> None:
    store = open_mailboxes()
    stored_by_older_code(mailbox_url, team, reply())
    posted_before = store.posted("alice", reply().id)
    store.send(reply())  # alice's SendMessage run again under this code
    open_mailboxes().send_as(reply(), {"state": "idle"})
    assert (posted_before, lead_reads(store)) == (True, [reply()])


def test_a_rerun_after_the_lead_read_the_older_codes_message_is_not_stored_again(
    open_mailboxes: OpenTeamStore, mailbox_url: str, team: str
) -> None:
    store = open_mailboxes()
    stored_by_older_code(mailbox_url, team, reply(), keep=False)
    posted_before = store.posted("alice", reply().id)
    store.send(reply())
    assert (posted_before, lead_reads(store)) == (True, [])


def test_another_senders_message_under_an_older_marks_id_is_its_own(
    open_mailboxes: OpenTeamStore, mailbox_url: str, team: str
) -> None:
    store = open_mailboxes()
    stored_by_older_code(mailbox_url, team, reply())
    bobs = reply("bob", "bob's own")
    posted_before = (store.posted("alice", bobs.id), store.posted("bob", bobs.id))
    store.send(bobs)
    store.send(reply())
    assert (posted_before, lead_reads(store)) == ((True, False), [reply(), bobs])


def test_a_team_deleted_drops_its_older_marks(
    open_mailboxes: OpenTeamStore, mailbox_url: str, team: str
) -> None:
    store = open_mailboxes()
    stored_by_older_code(mailbox_url, team, reply(), keep=False)
    store.delete_team()
    posted_after = store.posted("alice", reply().id)
    left = older_marks_left(mailbox_url, team)
    open_mailboxes().send(reply())  # the new team's own message under the id
    assert (posted_after, left, lead_reads(store)) == (False, 0, [reply()])
