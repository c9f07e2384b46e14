"""A correction whose text another memory already holds merges into that memory: the memory
kept is dated the day it was said again (of two memories that disagree, the later is taken as
current) and keeps its own tags, not those of the memory removed (which name that one's
subject). Sessions of `tether -p` against the fake model, `tether memory list --json`."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from tether.cli.memory_setup import memory_path
from tether.memory.store import MemoryStore
from tether.testing import FakeModelServer, text, tool_use
from tether.testing.cli_runner import CliResult

from .conftest import memory_cli

Run = Callable[..., CliResult]
PORT, DEPLOY = "The dev server listens on port 8000", "Deploys go through staging"


def test_a_correction_merged_into_an_existing_memory_is_dated_now_with_its_own_tags(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    path = memory_path(Path(os.environ["TETHER_HOME"]), workspace)
    store = MemoryStore(path, None)
    store.save(PORT, ("devserver",))
    store.save(DEPLOY, ("deploy",))
    store.close()
    with sqlite3.connect(path) as db:  # saved long ago
        db.execute("UPDATE memories SET created_at = '2025-01-01T00:00:00+00:00' WHERE id = 2")
    before = datetime.now(UTC)
    fake_model.script(
        tool_use("MemorySave", text=DEPLOY, tags=["release"], replaces=1),
        text("done"),
    )
    result = tether("-p", "correct it")
    assert result.exit_code == 0, result.stderr
    assert fake_model.requests[1].tool_results() == [
        f'Memory 1 ("{PORT}") is removed: memory 2 already says this.'
    ]
    listed = memory_cli("--cwd", str(workspace), "list", "--json")
    [kept] = json.loads(listed.stdout)
    assert datetime.fromisoformat(kept.pop("created_at")) >= before
    assert kept == {"id": 2, "text": DEPLOY, "tags": ["deploy", "release"]}
    found = memory_cli("--cwd", str(workspace), "search", "devserver")
    assert (found.exit_code, found.stdout) == (0, "no match\n"), found.stderr


def test_the_same_text_saved_again_without_a_correction_keeps_its_date(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    path = memory_path(Path(os.environ["TETHER_HOME"]), workspace)
    store = MemoryStore(path, None)
    store.save(DEPLOY, ("deploy",))
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE memories SET created_at = '2025-01-01T00:00:00+00:00' WHERE id = 1")
    fake_model.script(tool_use("MemorySave", text=DEPLOY, tags=["release"]), text("done"))
    assert tether("-p", "remember").exit_code == 0
    listed = memory_cli("--cwd", str(workspace), "list", "--json")
    assert json.loads(listed.stdout) == [
        {
            "id": 1,
            "text": DEPLOY,
            "tags": ["deploy", "release"],
            "created_at": "2025-01-01T00:00:00+00:00",
        }
    ]
