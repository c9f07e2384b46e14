"""Mailbox stores under faults: a Redis server that goes away, comes back empty or comes back
with its data, a store that cannot be opened, and URLs and team names that are refused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.store.mailbox import (
    MailboxesLost,
    Member,
    Message,
    TeamRecord,
    open_mailbox_store,
    open_roster,
    open_team_store,
)
from tether.store.task_records import NewTask, StoreUnavailable
from tether.store.task_store import default_store_path, open_task_store
from tether.testing.redis_server import RedisServer


def note(n: int, to: str = "alice") -> Message:
    return Message(id=f"m{n}", sender="lead", recipient=to, text=f"note {n}", sent_at=1.0)


@pytest.fixture
def own_redis(redis_url: str) -> Iterator[list[RedisServer]]:
    """A Redis server of the test's own, to stop and start (`redis_url`: skipped, saying why,
    where there is none); every server the test started is stopped."""
    servers = [RedisServer.start()]
    yield servers
    for server in servers:
        server.stop()


def test_a_redis_restarted_empty_is_said_once_and_what_is_sent_since_is_kept(
    own_redis: list[RedisServer], tmp_path: Path
) -> None:
    server = own_redis[0]
    lead = open_team_store(server.url, project=tmp_path, team="crew")
    alice = open_team_store(server.url, project=tmp_path, team="crew")
    for n in range(3):
        lead.send(note(n))
    held = alice.receive("alice", "alice-1", max_count=2)
    assert [d.message.id for d in held] == ["m0", "m1"]
    server.stop()
    with pytest.raises(StoreUnavailable, match=rf"^mailbox store {server.url}: "):
        lead.send(note(3))
    with pytest.raises(StoreUnavailable, match=rf"^mailbox store {server.url}: "):
        alice.receive("alice", "alice-1")
    own_redis.append(RedisServer.start(port=server.port))
    lead.send(note(4))
    alice.ack("alice", [d.receipt for d in held])  # what it held is gone with the server
    with pytest.raises(MailboxesLost) as caught:
        alice.receive("alice", "alice-1")
    assert str(caught.value) == (
        f"mailbox store {server.url}: the server no longer has the data of team 'crew' (restarted "
        "without it?): messages to 'alice' not yet received before then are gone; messages "
        "sent since are kept"
    )
    (got,) = alice.receive("alice", "alice-1")
    assert (got.message, got.attempt) == (note(4), 1)
    alice.ack("alice", [got.receipt])
    assert alice.receive("alice", "alice-1") == []
    assert alice.unread("alice") == 0
    # Said once to each store that had known the team; a store opened since has nothing to say.
    with pytest.raises(MailboxesLost):
        lead.receive("lead", "lead-1")
    assert open_team_store(server.url, project=tmp_path, team="crew").receive("x", "x") == []


def test_a_redis_restarted_with_its_data_loses_nothing(
    own_redis: list[RedisServer], tmp_path: Path
) -> None:
    own_redis[0].stop()
    server = RedisServer.start(persist=True)
    own_redis[0] = server
    store = open_team_store(server.url, project=tmp_path, team="crew")
    for n in range(4):
        store.send(note(n))
    held = store.receive("alice", "alice-1", max_count=2)
    server.kill()
    own_redis[0] = RedisServer.start(port=server.port, workdir=server.workdir, persist=True)
    got = store.receive("alice", "alice-2", reclaim_after_s=0)
    assert [(d.message.id, d.attempt) for d in got] == [
        ("m0", 2),
        ("m1", 2),
        ("m2", 1),
        ("m3", 1),
    ]
    store.ack("alice", [d.receipt for d in got])
    store.ack("alice", [d.receipt for d in held])
    assert store.unread("alice") == 0


def test_a_waiting_redis_receive_blocks_on_the_server(
    own_redis: list[RedisServer], tmp_path: Path
) -> None:
    import redis

    server = own_redis[0]
    store = open_mailbox_store(server.url, project=tmp_path, team="crew")
    assert store.receive("alice", "alice-1", block_s=1.0) == []
    stats = redis.Redis.from_url(server.url, decode_responses=True).info("commandstats")
    # One blocking read for the second it waited: no polling.
    assert stats["cmdstat_xreadgroup"]["calls"] == 1


def test_an_unreachable_redis_names_its_url_and_stops(tmp_path: Path, refused_port: int) -> None:
    url = f"redis://:secret@127.0.0.1:{refused_port}/0"
    with pytest.raises(StoreUnavailable) as caught:
        open_roster(url, project=tmp_path, team="crew")
    message = str(caught.value)
    assert message.startswith(
        f"cannot reach the mailbox store at redis://:***@127.0.0.1:{refused_port}/0"
    )
    assert "secret" not in message


def test_a_corrupt_sqlite_file_is_named_and_left_alone(tmp_path: Path) -> None:
    path = default_store_path(tmp_path)
    path.parent.mkdir(parents=True)
    junk = b"this is not a database, it is a note\n" * 200
    path.write_bytes(junk)
    with pytest.raises(StoreUnavailable) as caught:
        open_team_store(None, project=tmp_path, team="crew")
    assert str(caught.value) == (
        f"{path} is not a usable mailbox store (file is not a database): restore it from a "
        "copy, or move it away to start an empty one (what it holds is then lost)"
    )
    assert path.read_bytes() == junk


def test_mailboxes_share_the_task_boards_file(tmp_path: Path) -> None:
    board = open_task_store(None, project=tmp_path, team="crew")
    team = open_team_store(None, project=tmp_path, team="crew")
    board.create(NewTask(subject="parse"))
    team.create_team(TeamRecord(name="crew"))
    team.send(note(1))
    assert team.url == board.url == str(default_store_path(tmp_path))
    assert [t.subject for t in board.list()] == ["parse"]
    assert team.unread("alice") == 1


def test_store_urls_and_team_names_are_checked(tmp_path: Path) -> None:
    assert open_team_store("boards/x.db", project=tmp_path, team="a").url == str(
        tmp_path / "boards" / "x.db"
    )
    assert open_team_store(f"sqlite://{tmp_path}/y.db", project=tmp_path, team="a").url == (
        f"{tmp_path}/y.db"
    )
    with pytest.raises(StoreUnavailable, match=r"store 'mongo://x': unknown kind"):
        open_team_store("mongo://x", project=tmp_path, team="a")
    for bad in ("a b", "", "x:y", "{x}"):
        with pytest.raises(StoreUnavailable, match=r"team name .*: use letters, digits"):
            open_team_store(None, project=tmp_path, team=bad)


def test_a_redis_key_in_a_mailboxs_place_fails_the_send_loudly(
    own_redis: list[RedisServer], tmp_path: Path
) -> None:
    import redis

    server = own_redis[0]
    redis.Redis.from_url(server.url).set("tether:{crew}:mailbox:alice", "not a stream")
    store = open_mailbox_store(server.url, project=tmp_path, team="crew")
    with pytest.raises(StoreUnavailable, match=rf"^mailbox store {server.url}: WRONGTYPE"):
        store.send(note(1))


def test_deleting_a_team_leaves_no_key_of_it_in_redis(
    own_redis: list[RedisServer], tmp_path: Path
) -> None:
    import redis

    server = own_redis[0]
    store = open_team_store(server.url, project=tmp_path, team="crew")
    store.create_team(TeamRecord(name="crew"))
    store.put_member(Member(name="alice"))
    store.send(note(1))
    assert store.receive("bob", "bob-1") == []  # bob's mailbox made by reading it
    store.delete_team()
    keys = redis.Redis.from_url(server.url, decode_responses=True).keys("tether:{crew}:*")
    assert keys == ["tether:{crew}:epoch"]  # kept: how a store knows the server kept its data


@pytest.mark.parametrize("step", ["xpending_range", "xreadgroup"])
def test_a_team_deleted_between_two_steps_of_a_receive_is_not_an_error(
    redis_url: str, tmp_path: Path, step: str
) -> None:
    """Deleted just before the named command of a waiting receive (a race the contract test
    hit now and then): the receive makes its group again and gets what is sent after."""
    receiver = open_team_store(redis_url, project=tmp_path, team="crew-race")
    lead = open_team_store(redis_url, project=tmp_path, team="crew-race")
    receiver.receive("alice", "alice-1")  # the group made and known
    client = receiver._r  # type: ignore[attr-defined]  # the real client: the race is timed on it
    command = getattr(client, step)
    deleted: list[str] = []

    def delete_first(*args: object, **kwargs: object) -> object:
        if deleted:
            return command(*args, **kwargs)
        deleted.append(step)
        lead.delete_team()
        try:
            return command(*args, **kwargs)
        finally:
            lead.send(note(2))  # sent after: it makes the mailbox again

    setattr(client, step, delete_first)
    try:
        got = receiver.receive("alice", "alice-1", block_s=30)
    finally:
        lead.close()
        receiver.close()
    assert (deleted, [d.message for d in got]) == ([step], [note(2)])
