"""A store URL is checked as a whole before anything connects: every malformed part is one
precise error, nothing is made, the password never shown; a Redis server's refusal (a
password, a database it lacks) is said in words a person can act on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.store.mailbox import open_roster
from tether.store.store_url import check_redis_url
from tether.store.task_records import StoreUnavailable
from tether.store.task_store import open_task_store
from tether.testing.redis_server import RedisServer, RedisUnavailable

BAD = [
    (
        "redis://:pw@127.0.0.1:6379/x",
        "the database must be a number (0 to 15 on a default server), not 'x'",
    ),
    (
        "redis://127.0.0.1:6379/-1",
        "the database must be a number (0 to 15 on a default server), not '-1'",
    ),
    (
        "redis://127.0.0.1:6379/0/extra",
        "the database must be a number (0 to 15 on a default server), not '0/extra'",
    ),
    (
        "redis://127.0.0.1:6379/\uff10",
        "the database must be a number (0 to 15 on a default server), not '\uff10'",
    ),
    (
        "redis://127.0.0.1:6379?db=two",
        "the database must be a number (0 to 15 on a default server), not 'two'",
    ),
    ("redis://127.0.0.1:6379/1?db=2", "it names the database twice (in its path and as ?db=)"),
    ("redis://:pw@127.0.0.1:99999/0", "the port must be a number from 1 to 65535, not '99999'"),
    ("redis://127.0.0.1:0/0", "the port must be a number from 1 to 65535, not '0'"),
    ("redis://127.0.0.1:abc/0", "the port must be a number from 1 to 65535, not 'abc'"),
    ("redis://127.0.0.1:6379:1/0", "the port must be a number from 1 to 65535, not '6379:1'"),
    ("redis://[::1]:x/0", "the port must be a number from 1 to 65535, not 'x'"),
    ("redis://", "it names no host"),
    ("redis://:pw@/0", "it names no host"),
    ("redis:/127.0.0.1:6379/0", "'redis:' needs '//' after it, as in redis://HOST:PORT/DB"),
    ("REDIS:127.0.0.1", "'redis:' needs '//' after it, as in redis://HOST:PORT/DB"),
    ("unix:/tmp/r.sock", "'unix:' needs '//' after it, as in unix:///PATH"),
    ("unix://host/tmp/r.sock", "a socket URL names no host ('host'): unix:///PATH/redis.sock"),
    ("unix://", "it names no socket file: unix:///PATH/redis.sock"),
    ("redis://127.0.0.1/0?colour=red", "no option 'colour' (the options are db, "),
    ("redis://127.0.0.1/0?socket_timeout=soon", "Invalid value for 'socket_timeout'"),
    ("redis://127.0.0.1/0?=&&", "its options '=&&' are not NAME=VALUE pairs joined by '&'"),
    ("redis://:pw@127.0.0.1/0#main", "'#main' has no meaning in a store URL"),
]


@pytest.mark.parametrize(("url", "said"), BAD, ids=[url for url, _ in BAD])
def test_a_malformed_redis_url_is_one_precise_error_and_nothing_is_made(
    url: str, said: str, tmp_path: Path
) -> None:
    for opener in (open_task_store, open_roster):
        with pytest.raises(StoreUnavailable) as caught:
            opener(url, project=tmp_path, team="crew")
        message = str(caught.value)
        assert message.startswith("task store URL '"), message
        assert said in message
        assert "redis://[:PASSWORD@]HOST[:PORT][/DB]" in message  # the forms that are right
        assert ":pw@" not in message
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "url",
    ["reds://127.0.0.1:6379/0", "http://127.0.0.1:6379", "mysql://h/db", "tasks:db"],
)
def test_an_unknown_kind_of_store_is_refused_not_taken_for_a_file(url: str, tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailable, match=r"unknown kind '\w+'.* as \./NAME\)"):
        open_task_store(url, project=tmp_path)
    with pytest.raises(StoreUnavailable, match=r"write a SQLite file as sqlite:///PATH"):
        open_task_store("sqlite:/tasks.db", project=tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "url",
    [
        "redis://h",
        "redis://h/",
        "redis://h:1/0",
        "redis://:pw@h:6379/15",
        "redis://user:pw@h:6379/3",
        "rediss://h/2",
        "redis://[::1]:6379/0",
        "redis://h?db=4&socket_timeout=5",
        "unix:///run/redis.sock",
        "unix://:pw@/run/redis.sock?db=3",
    ],
)
def test_the_forms_redis_py_reads_as_written_pass(url: str) -> None:
    check_redis_url(url)


def test_a_database_the_server_lacks_is_said(redis_url: str, tmp_path: Path) -> None:
    url = redis_url.rpartition("/")[0] + "/99"
    with pytest.raises(StoreUnavailable) as caught:
        open_task_store(url, project=tmp_path)
    assert str(caught.value) == (
        f"the task store at {url} cannot be used: this Redis server has no database 99 (it has "
        "as many as its `databases` setting says, 16 by default: 0 to 15)"
    )


@pytest.fixture
def guarded() -> Iterator[RedisServer]:
    """A Redis server whose default user needs the password `s3cret`."""
    try:
        server = RedisServer.start(password="s3cret")
    except RedisUnavailable as e:
        pytest.skip(f"no Redis server: {e}")
    try:
        yield server
    finally:
        server.stop()


def test_a_missing_or_wrong_password_is_said_as_such(guarded: RedisServer, tmp_path: Path) -> None:
    bare = f"redis://127.0.0.1:{guarded.port}/0"
    for opener, kind in ((open_task_store, "task"), (open_roster, "mailbox")):
        with pytest.raises(StoreUnavailable) as missing:
            opener(bare, project=tmp_path, team="crew")
        assert str(missing.value) == (
            f"the {kind} store at {bare} cannot be used: this Redis server needs a password: "
            "put it in the URL, as in redis://:PASSWORD@HOST:PORT/DB"
        )
        for wrong in (
            f"redis://:nope@127.0.0.1:{guarded.port}/0",
            f"redis://bob:s3cret@127.0.0.1:{guarded.port}/0",
        ):
            with pytest.raises(StoreUnavailable) as refused:
                opener(wrong, project=tmp_path, team="crew")
            message = str(refused.value)
            assert "this Redis server refused the URL's password (or user)" in message
            assert "nope" not in message
            assert "s3cret" not in message
    right = open_task_store(f"redis://:s3cret@127.0.0.1:{guarded.port}/0", project=tmp_path)
    try:
        assert right.list() == []
        assert right.url == f"redis://:***@127.0.0.1:{guarded.port}/0"
    finally:
        right.close()


@pytest.mark.parametrize("url", ["127.0.0.1:6379", "localhost:6379/0", "redis-host:6380/2"])
def test_a_redis_address_without_its_scheme_is_not_made_into_a_file(
    url: str, tmp_path: Path
) -> None:
    with pytest.raises(StoreUnavailable) as caught:
        open_task_store(url, project=tmp_path)
    assert str(caught.value) == (
        f"task store {url!r} looks like a Redis address, not a file: write redis://{url} (or "
        "./NAME for a file of that name)"
    )
    with pytest.raises(StoreUnavailable, match=r"is no file path \('//'\) nor URL"):
        open_task_store("redis//127.0.0.1:6379/0", project=tmp_path)
    assert list(tmp_path.iterdir()) == []
    open_task_store(f"./{url.replace('/', '_')}", project=tmp_path).close()  # a file, asked so
