"""`team send`'s plain message over Redis speaks the wire itself (`resp_wire`, no redis-py to
import): what it stores and what it refuses are what the redis-py poster stores and refuses."""

from __future__ import annotations

import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tether.store.mailbox import Member, TeamRecord, open_team_store
from tether.store.mailbox_post import RedisPoster, WirePoster, open_poster
from tether.store.store_errors import StoreUnavailable


@pytest.fixture
def team(redis_url: str, tmp_path: Path) -> Iterator[str]:
    name = f"t-{uuid.uuid4().hex[:8]}"
    store = open_team_store(redis_url, project=tmp_path, team=name)
    store.create_team(TeamRecord(name=name))
    store.put_member(Member(name="team-lead", state="idle"))
    store.put_member(Member(name="alice"))
    try:
        yield name
    finally:
        store.delete_team()
        store.close()


def test_a_plain_url_is_spoken_directly_and_stores_what_redis_py_stores(
    redis_url: str, team: str, tmp_path: Path
) -> None:
    poster = open_poster(redis_url, project=tmp_path, team=team)
    assert isinstance(poster, WirePoster)
    other = RedisPoster(redis_url, team)
    try:
        assert (poster.team_exists(), poster.member_names()) == (True, ["team-lead", "alice"])
        assert (other.team_exists(), other.member_names()) == (True, ["team-lead", "alice"])
        ids = [
            poster.post("team-lead", "alice", "hi \N{SNOWMAN}"),
            other.post("team-lead", "alice", "again"),
        ]
        ids.append(poster.post("team-lead", "bob", "to a mailbox never made"))
    finally:
        poster.close()
        other.close()
    store = open_team_store(redis_url, project=tmp_path, team=team)
    try:
        got = store.receive("alice", "test", block_s=1.0, max_count=10)
        bob = store.receive("bob", "test", block_s=1.0)
    finally:
        store.close()
    assert [(d.message.id, d.message.kind, d.message.text) for d in got] == [
        (ids[0], "message", "hi \N{SNOWMAN}"),
        (ids[1], "message", "again"),
    ]
    assert [(d.message.id, d.message.text) for d in bob] == [(ids[2], "to a mailbox never made")]
    empty = open_poster(redis_url, project=tmp_path, team="no-such-team")
    try:
        assert (empty.team_exists(), empty.member_names()) == (False, [])
    finally:
        empty.close()


def test_a_password_given_to_a_server_without_one_is_let_pass_as_redis_py_does(
    redis_url: str, team: str, tmp_path: Path
) -> None:
    parts = urlsplit(redis_url)
    url = parts._replace(netloc=f":secret@{parts.netloc}").geturl()
    poster = open_poster(url, project=tmp_path, team=team)
    try:
        assert poster.member_names() == ["team-lead", "alice"]
    finally:
        poster.close()


def test_what_cannot_be_used_is_said_naming_the_store(redis_url: str, tmp_path: Path) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nobody listens there
    with pytest.raises(StoreUnavailable) as refused:
        open_poster(f"redis://127.0.0.1:{port}/0", project=tmp_path, team="t")
    assert str(refused.value) == (
        f"cannot reach the mailbox store at redis://127.0.0.1:{port}/0: "
        "[Errno 111] Connection refused"
    )
    parts = urlsplit(redis_url)
    with pytest.raises(StoreUnavailable) as no_db:
        open_poster(f"redis://{parts.netloc}/15000", project=tmp_path, team="t")
    assert "has no database 15000" in str(no_db.value)

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def answer_http() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(100)
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")

    answering = threading.Thread(target=answer_http)
    answering.start()
    port = listener.getsockname()[1]
    try:
        with pytest.raises(StoreUnavailable) as http:
            open_poster(f"redis://127.0.0.1:{port}/0", project=tmp_path, team="t")
    finally:
        answering.join()
        listener.close()
    assert str(http.value) == (
        f"cannot reach the mailbox store at redis://127.0.0.1:{port}/0: what answers there is "
        "not a Redis server (not a Redis reply: b'HTTP/1.1 400 Bad Request\\r\\n')"
    )
