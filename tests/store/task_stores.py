"""Both task stores for one test: the contract suite runs every test against each."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tether.store.task_store import TaskStore, open_task_store

OpenStore = Callable[..., TaskStore]


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The SQLite file of the test, or the session's Redis server."""
    if request.param == "sqlite":
        return str(tmp_path / "project" / ".tether" / "tasks.db")
    return str(request.getfixturevalue("redis_url"))


@pytest.fixture
def team() -> str:
    """A team of the test's own (the Redis server is shared by the whole run)."""
    return f"t-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def open_store(store_url: str, team: str, tmp_path: Path) -> Iterator[OpenStore]:
    """Open the test's store (another connection each call, as another process would)."""
    opened: list[TaskStore] = []

    def open_one(team_name: str = team) -> TaskStore:
        store = open_task_store(store_url, project=tmp_path / "project", team=team_name)
        opened.append(store)
        return store

    yield open_one
    for store in opened:
        store.close()


@pytest.fixture
def store(open_store: OpenStore) -> TaskStore:
    return open_store()
