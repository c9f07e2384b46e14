"""Running `tether team` against the fake model, and reading the lead's mailbox as the lead."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tether.store.mailbox import Message, TeamStore, open_team_store

from .workers import WAIT_S, tether, wait_for


def new_team() -> str:
    """A team name of the test's own (the Redis server is shared by the whole run)."""
    return f"t-{uuid.uuid4().hex[:8]}"


@pytest.fixture(params=["sqlite", "redis"])
def store(request: pytest.FixtureRequest) -> list[str]:
    """The project's SQLite file (no flag), or the run's Redis."""
    if request.param == "sqlite":
        return []
    return ["--store", str(request.getfixturevalue("redis_url"))]


def status(repo: Path, team: str, *store: str) -> dict[str, Any]:
    return json.loads(tether(repo, "team", "status", team, "--json", *store))


def member(record: dict[str, Any], name: str) -> dict[str, Any]:
    return next(m for m in record["members"] if m["name"] == name)


def lead_store(repo: Path, team: str, url: str | None = None) -> TeamStore:
    return open_team_store(url, project=repo, team=team)


def lead_reads(store: TeamStore, count: int) -> list[Message]:
    """The next `count` messages to the lead (at least), acknowledged."""
    found: list[Message] = []
    deadline = time.monotonic() + WAIT_S
    while len(found) < count:
        assert time.monotonic() < deadline, f"waited {WAIT_S:g} s for the lead's mail: {found}"
        batch = store.receive("team-lead", "test-lead", block_s=1.0)
        store.ack("team-lead", [d.receipt for d in batch])
        found.extend(d.message for d in batch)
    return found


def wait_state(repo: Path, team: str, name: str, state: str, *store: str) -> dict[str, Any]:
    seen: list[dict[str, Any]] = []

    def reached() -> bool:
        seen[:] = [member(status(repo, team, *store), name)]
        return seen[0]["state"] == state

    wait_for(reached, f"{name} to be {state}")
    return seen[0]


def lead_reads_until(store: TeamStore, text_start: str) -> list[Message]:
    """The lead's messages up to the first whose text starts with `text_start`."""
    found: list[Message] = []
    while not any(m.text.startswith(text_start) for m in found):
        found.extend(lead_reads(store, 1))
    return found
