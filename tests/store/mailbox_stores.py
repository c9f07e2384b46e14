"""Both mailbox stores for one test (the store URL and team fixtures are the task stores'):
the mailbox contract suite runs every test against SQLite and a real Redis server."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tether.store.mailbox import TeamStore, open_team_store

OpenTeamStore = Callable[..., TeamStore]


@pytest.fixture(params=["sqlite", "redis"])
def mailbox_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The SQLite file of the test, or the session's Redis server."""
    if request.param == "sqlite":
        return str(tmp_path / "project" / ".tether" / "tasks.db")
    return str(request.getfixturevalue("redis_url"))


@pytest.fixture
def open_mailboxes(mailbox_url: str, team: str, tmp_path: Path) -> Iterator[OpenTeamStore]:
    """Open the test's team store (another connection each call, as another process would)."""
    opened: list[TeamStore] = []

    def open_one(team_name: str = team) -> TeamStore:
        store = open_team_store(mailbox_url, project=tmp_path / "project", team=team_name)
        opened.append(store)
        return store

    yield open_one
    for store in opened:
        store.close()


@pytest.fixture
def mailboxes(open_mailboxes: OpenTeamStore) -> TeamStore:
    return open_mailboxes()


def store_raw(url: str, team: str, member: str, raw: str | bytes, *, as_text: bool = False) -> None:
    """Put an entry in a mailbox the way a foreign or broken writer would: not through
    `send`, so nothing checked it. `as_text`: bytes kept in SQLite as text, whatever they
    hold (a BLOB otherwise)."""
    if url.startswith("redis://"):
        import redis

        client = redis.Redis.from_url(url)
        client.xadd(f"tether:{{{team}}}:mailbox:{member}", {"data": raw})
        client.close()
        return
    db = sqlite3.connect(url)
    value = "CAST(? AS TEXT)" if as_text else "?"
    db.execute(
        f"INSERT INTO mailbox (team, member, data) VALUES (?, ?, {value})", (team, member, raw)
    )
    db.commit()
    db.close()


def mailbox_client(url: str, team: str, project: Path, *args: str) -> subprocess.Popen[str]:
    action, *rest = args
    program = [sys.executable, "-m", "tether.testing.mailbox_clients"]
    return subprocess.Popen(
        [*program, action, url, team, "--project", str(project), *rest],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
