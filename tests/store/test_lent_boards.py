"""A board opened for a session a worker lent a claim (`made=False`) exists already: one that
is gone (a SQLite file moved away, a Redis board whose data a restart lost) is said lost and
never made again, empty, under a new identity the worker would then meet as another board."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tether.store.task_records import StoreLost
from tether.store.task_store import open_task_store


def test_a_sqlite_board_that_is_gone_is_not_made_again(tmp_path: Path) -> None:
    path = tmp_path / "tasks.db"
    with pytest.raises(StoreLost, match="deleted or moved away"):
        open_task_store(f"sqlite://{path}", project=tmp_path, made=False)
    assert not path.exists()
    open_task_store(f"sqlite://{path}", project=tmp_path).close()  # made by whoever makes it
    open_task_store(f"sqlite://{path}", project=tmp_path, made=False).close()


def test_a_redis_board_without_its_identity_is_not_given_a_new_one(
    redis_url: str, tmp_path: Path
) -> None:
    team = f"lent-{uuid.uuid4().hex[:8]}"
    with pytest.raises(StoreLost, match="its epoch key is gone"):
        open_task_store(redis_url, project=tmp_path, team=team, made=False)
    with pytest.raises(StoreLost):  # still none: the failed open made nothing
        open_task_store(redis_url, project=tmp_path, team=team, made=False)
    made = open_task_store(redis_url, project=tmp_path, team=team)
    lent = open_task_store(redis_url, project=tmp_path, team=team, made=False)
    made.close()
    lent.close()
