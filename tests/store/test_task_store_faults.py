"""A store that cannot be used says where and why, and nothing falls back to another one."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import pytest

from tether.store.task_records import NewTask, StoreDamaged, StoreLost, StoreUnavailable
from tether.store.task_store import default_store_path, open_task_store


def test_a_corrupt_sqlite_file_is_named_and_left_alone(tmp_path: Path) -> None:
    path = default_store_path(tmp_path)
    path.parent.mkdir(parents=True)
    junk = b"this is not a database, it is a note\n" * 200
    path.write_bytes(junk)
    with pytest.raises(StoreDamaged) as caught:
        open_task_store(None, project=tmp_path)
    assert str(caught.value) == (
        f"{path} is not a usable task store (file is not a database): restore it from a copy, "
        "or move it away to start an empty one (what it holds is then lost)"
    )
    assert path.read_bytes() == junk


def test_an_unreachable_redis_names_its_url_and_stops(refused_port: int) -> None:
    port = refused_port
    url = f"redis://:secret@127.0.0.1:{port}/0"
    with pytest.raises(StoreUnavailable) as caught:
        open_task_store(url, project=Path("/nonexistent"))
    message = str(caught.value)
    assert message.startswith(f"cannot reach the task store at redis://:***@127.0.0.1:{port}/0: ")
    assert "Connection refused" in message
    assert "secret" not in message


def test_a_redis_server_that_goes_away_is_said_not_hidden(redis_url: str, tmp_path: Path) -> None:
    from tether.testing.redis_server import RedisServer

    server = RedisServer.start()
    store = open_task_store(server.url, project=tmp_path, team="gone")
    store.create(NewTask(subject="a"))
    server.stop()
    with pytest.raises(StoreUnavailable, match=rf"task store {server.url}: .*"):
        store.list()


def test_store_urls_pick_their_kind(tmp_path: Path) -> None:
    plain = open_task_store("boards/x.db", project=tmp_path, team="a")
    assert plain.url == str(tmp_path / "boards" / "x.db")
    absolute = open_task_store(f"sqlite://{tmp_path}/y.db", project=tmp_path)
    assert absolute.url == f"{tmp_path}/y.db"
    with pytest.raises(StoreUnavailable, match=r"task store 'mongo://x': unknown kind"):
        open_task_store("mongo://x", project=tmp_path)
    with pytest.raises(StoreUnavailable, match=r"team name 'a b'"):
        open_task_store(None, project=tmp_path, team="a b")


def test_a_file_damaged_under_an_open_store_is_said_damaged(tmp_path: Path) -> None:
    store = open_task_store(None, project=tmp_path)
    try:
        store.create(NewTask(subject="one"))
        claim = store.claim_next("w")
        assert claim is not None
        path = default_store_path(tmp_path)
        db = sqlite3.connect(path)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        path.write_bytes(b"\x5a\xa5" * 4096)
        for step in (lambda: store.heartbeat(claim), store.list, lambda: store.claim_next("w")):
            with pytest.raises(StoreDamaged) as caught:
                step()
            assert str(caught.value).startswith(f"{path} is not a usable task store (")
    finally:
        store.close()


def test_a_redis_board_that_lost_its_data_is_said_lost_not_empty(
    redis_url: str, tmp_path: Path
) -> None:
    import redis

    team = f"lost-{uuid.uuid4().hex[:8]}"
    store = open_task_store(redis_url, project=tmp_path, team=team)
    other = open_task_store(redis_url, project=tmp_path, team=team)
    raw = redis.Redis.from_url(redis_url)
    try:
        store.create(NewTask(subject="a"))
        claim = store.claim_next("w")
        assert claim is not None
        assert [t.subject for t in other.list()] == ["a"]  # the same board: one epoch
        for key in raw.scan_iter(f"tether:{{{team}}}:*"):  # what a restart without data does
            raw.delete(key)
        steps = (
            store.list,
            lambda: store.claim_next("w"),
            lambda: store.heartbeat(claim),
            lambda: store.complete(claim, "done"),
            lambda: store.get("1"),
        )
        for step in steps:
            with pytest.raises(StoreLost, match="its epoch key is gone") as caught:
                step()
            assert str(caught.value).startswith(
                f"the board of team '{team}' at {redis_url} lost its data ("
            )
        fresh = open_task_store(redis_url, project=tmp_path, team=team)  # a new board
        try:
            assert fresh.list() == []
            with pytest.raises(StoreLost, match="its epoch key is another board's"):
                other.claim_next("w")
        finally:
            fresh.close()
    finally:
        raw.close()
        store.close()
        other.close()


def test_a_sqlite_file_moved_away_under_an_open_store_is_lost_not_used(tmp_path: Path) -> None:
    store = open_task_store(None, project=tmp_path)
    store.create(NewTask(subject="a"))
    path = default_store_path(tmp_path)
    path.rename(path.with_name("tasks.db.bak"))
    for step in (
        store.list,
        lambda: store.create(NewTask(subject="b")),
        lambda: store.claim_next("w"),
    ):
        with pytest.raises(StoreLost) as caught:
            step()
        assert str(caught.value).startswith(
            f"the task store {path} was deleted or moved away since this process opened it"
        )
    store.close()
    assert not path.exists()  # not made again either


def test_a_sqlite_file_replaced_under_an_open_store_is_lost_not_used(tmp_path: Path) -> None:
    store = open_task_store(None, project=tmp_path)
    store.create(NewTask(subject="old"))
    path = default_store_path(tmp_path)
    for leftover in path.parent.glob("tasks.db*"):
        leftover.unlink()
    fresh = open_task_store(None, project=tmp_path)
    fresh.create(NewTask(subject="new"))
    with pytest.raises(StoreLost, match="was replaced by another file since this process"):
        store.claim_next("w")
    assert [t.subject for t in fresh.list()] == ["new"]
    store.close()
    fresh.close()
