"""Memory whose `/v1/embeddings` endpoint is down, over the wire: `tether -p` sessions against
the fake model and `tether memory` go on by words, each saying once which endpoint failed and
how; nothing saved meanwhile is lost, and its meaning is added once the endpoint answers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, text, tool_use
from tether.testing.cli_runner import CliResult

from .conftest import (
    Endpoint,
    memory_cli,
    refused_url,
    save_in_a_session,
    undated,
    use_endpoint,
)

Run = Callable[..., CliResult]

CACHE = "The cache lives in /var/cache/app"
DOG = "Our dog is called Rex"


def test_with_the_endpoint_down_memory_lists_searches_saves_and_removes_by_words(
    fake_model: FakeModelServer,
    tether: Run,
    workspace: Path,
    endpoint: Endpoint,
    monkeypatch: pytest.MonkeyPatch,
    refused_port: int,
) -> None:
    use_endpoint(monkeypatch, endpoint.base_url)
    save_in_a_session(fake_model, tether, CACHE)

    down = refused_url(refused_port)
    use_endpoint(monkeypatch, down)
    listed = memory_cli("--cwd", str(workspace), "list")
    assert listed.exit_code == 0, listed.stderr
    assert CACHE in listed.stdout
    assert listed.stderr == ""

    searched = memory_cli("--cwd", str(workspace), "search", "cache")
    assert searched.exit_code == 0, searched.stderr
    assert f"(words)  {CACHE}" in searched.stdout
    [line] = searched.stderr.splitlines()
    assert line.startswith(
        f"tether memory: searching by words only: cannot embed for memory: {down}/embeddings: "
    )
    assert "refused" in line.lower()

    fake_model.requests.clear()
    fake_model.script(
        tool_use("MemorySearch", query="cache"),
        tool_use("MemorySave", text=DOG),
        text("done"),
    )
    result = tether("-p", "where is the cache?")
    assert result.exit_code == 0, result.stderr
    offered = str(fake_model.requests[0].messages())
    assert CACHE in offered  # the session-start offer, by words
    [found] = fake_model.requests[1].tool_results()
    assert found.startswith(
        f"Ranked by words only: the query could not be embedded (cannot embed for memory: "
        f"{down}/embeddings: "
    )
    assert undated(found).endswith(f"Memory 1: {CACHE}")
    [saved] = fake_model.requests[2].tool_results()
    assert saved.startswith("Saved as memory 2, by its words only for now (cannot embed for ")
    told = [line for line in result.stderr.splitlines() if "memory" in line]
    assert len(told) == 2, result.stderr  # the search's once, the save's once
    assert told[0].startswith(
        f"tether: memory: searching by words only: cannot embed for memory: {down}"
    )

    removed = memory_cli("--cwd", str(workspace), "rm", "1")
    assert (removed.exit_code, removed.stdout) == (0, "removed memory 1\n")

    use_endpoint(monkeypatch, endpoint.base_url)  # back: the save made by words gets its meaning
    again = memory_cli("--cwd", str(workspace), "search", "puppy")
    assert again.exit_code == 0, again.stderr
    assert (again.stderr, DOG in again.stdout, "(meaning)" in again.stdout) == ("", True, True)
