"""A memory's id names that memory or none, ever: `replaces` is a positive integer within
SQLite's range, strictly (a model's `true` or "2" is no id), and an id once given is never
given again, so a stale `replaces` finds "no memory N" instead of rewriting a memory saved
after the one it meant. Sessions of `tether -p` against the fake model, `tether memory`."""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tether.cli.memory_setup import memory_path
from tether.memory.store import MemoryStore
from tether.testing import FakeModelServer, text, tool_use
from tether.testing.cli_runner import CliResult, run_cli_process

from .conftest import memory_cli

Run = Callable[..., CliResult]

PORT = "The API server listens on port 9090."


def _saved(fake_model: FakeModelServer, tether: Run, **call: object) -> str:
    """The tool result of one MemorySave call with `call`, in a session of its own."""
    fake_model.requests.clear()
    fake_model.script(tool_use("MemorySave", **call), text("done"))
    result = tether("-p", "remember this")
    assert result.exit_code == 0, result.stderr
    [said] = fake_model.requests[1].tool_results()
    return said


@pytest.mark.parametrize(
    ("replaces", "why"),
    [
        (True, "Input should be a valid integer"),
        ("1", "Input should be a valid integer"),
        (1.0, "Input should be a valid integer"),
        (2**63, "Input should be less than or equal to 9223372036854775807"),
        (2**70, "Input should be less than or equal to 9223372036854775807"),
    ],
)
def test_replaces_that_is_no_id_in_range_is_an_input_error_and_the_session_goes_on(
    fake_model: FakeModelServer, tether: Run, workspace: Path, replaces: object, why: str
) -> None:
    assert _saved(fake_model, tether, text=PORT) == "Saved as memory 1."
    fake_model.requests.clear()
    fake_model.script(
        tool_use("MemorySave", text="bool id memory", replaces=replaces),
        text("went on"),
    )
    result = tether("-p", "remember this")
    assert result.exit_code == 0, result.stderr  # 2**63 ended the session: internal error
    assert "went on" in result.stdout
    [said] = fake_model.requests[1].tool_results()
    assert fake_model.requests[1].tool_result_errors() == [True]
    assert said.startswith("Error: "), said
    assert "replaces" in said, said
    assert why in said, said
    listed = memory_cli("--cwd", str(workspace), "list")
    assert PORT in listed.stdout  # `true` made it memory 1, rewritten
    assert "bool id memory" not in listed.stdout


def test_a_removed_id_is_never_given_again_so_a_stale_replaces_rewrites_nothing(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    assert _saved(fake_model, tether, text="The API server listens on port 8080.") == (
        "Saved as memory 1."
    )
    assert _saved(fake_model, tether, text="Docs are built with mkdocs.") == "Saved as memory 2."
    removed = memory_cli("--cwd", str(workspace), "rm", "2")
    assert removed.stdout == "removed memory 2\n", removed.stderr
    redis = "The cache lives in Redis."
    assert _saved(fake_model, tether, text=redis) == "Saved as memory 3."  # was 2 again
    said = _saved(fake_model, tether, text="Docs are built with Sphinx.", replaces=2)
    assert said.startswith(
        "There is no memory 2 (removed since?): nothing was replaced. Saved as memory 4."
    ), said
    listed = memory_cli("--cwd", str(workspace), "list").stdout
    assert redis in listed
    assert "Sphinx" in listed
    # The newest removed by `replaces` (the same text saved as another memory) stays given.
    said = _saved(fake_model, tether, text=redis, replaces=4)
    assert said.startswith('Memory 4 ("Docs are built with Sphinx.") is removed'), said
    said = _saved(fake_model, tether, text="Lint with ruff.")
    assert said.startswith("Saved as memory 5."), said


def test_ids_are_not_given_again_in_a_memory_file_from_before_the_mark(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    path = memory_path(Path(os.environ["TETHER_HOME"]), workspace)
    store = MemoryStore(path, None)
    for fact in ("Deploy with make release.", "Tabs in Makefiles.", "Docs use mkdocs."):
        store.save(fact)
    store.close()
    with sqlite3.connect(path) as db:  # as a file written before the mark was kept
        db.execute("DELETE FROM meta WHERE key = 'last_id'")
    removed = memory_cli("--cwd", str(workspace), "rm", "3")
    assert removed.stdout == "removed memory 3\n", removed.stderr
    said = _saved(fake_model, tether, text="The build runs on Linux.")
    assert said.startswith("Saved as memory 4."), said
    said = _saved(fake_model, tether, text="Docs use Sphinx.", replaces=3)
    assert said.startswith("There is no memory 3 (removed since?)"), said


def test_a_replacement_kept_aside_is_told_pending_and_done_when_it_is_added(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    stale, fixed = "The API server listens on port 7070.", "The API server listens on port 6060."
    assert _saved(fake_model, tether, text=stale) == "Saved as memory 1."
    path = memory_path(Path(os.environ["TETHER_HOME"]), workspace)
    with sqlite3.connect(path) as db:  # the memory file unusable: written by a newer tether
        db.execute("PRAGMA user_version = 999")
    said = _saved(fake_model, tether, text=fixed, replaces=1)
    assert said.startswith("The memory could not be saved"), said
    assert (
        "It replaces memory 1 when it is added: not yet, memory 1 keeps its earlier text "
        "until then. Do not save it again."
    ) in said
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 1")
    listed = memory_cli("--cwd", str(workspace), "list")
    assert "1 memory(ies) kept aside earlier added" in listed.stderr
    assert fixed in listed.stdout
    assert stale not in listed.stdout  # it was kept beside its correction
    found = memory_cli("--cwd", str(workspace), "search", "6060")
    assert found.stdout.startswith("    1  "), found.stdout  # the id of the one it replaced


NEVER = (
    "Error: There is no memory {id}: no memory of this project ever had that id (the highest "
    "given is {highest}). Nothing was saved."
)


def test_an_id_never_given_is_refused_so_two_sessions_naming_it_create_and_rewrite_nothing(
    model_env: FakeModelServer, workspace: Path
) -> None:
    fake_model = model_env
    argv = ["--cwd", str(workspace), "--permission-mode", "bypassPermissions", "-p", "remember"]

    def session(**call: object) -> str:
        fake_model.requests.clear()
        fake_model.script(tool_use("MemorySave", **call), text("done"))
        result = run_cli_process(argv)
        assert result.exit_code == 0, result.stderr
        [said] = fake_model.requests[1].tool_results()
        return said

    assert session(text=PORT) == "Saved as memory 1."
    # The first made memory 2 ("no memory 2 (removed since?)"), the second rewrote it.
    said = session(text="The cache lives in Memcached.", replaces=2)
    assert said.startswith(NEVER.format(id=2, highest=1)), said
    assert "Name in `replaces` only an id MemorySearch or MemorySave showed" in said
    assert fake_model.requests[1].tool_result_errors() == [True]
    said = session(text="The cache lives in Redis.", replaces=2)
    assert said.startswith(NEVER.format(id=2, highest=1)), said
    assert session(text="Lint with ruff.") == "Saved as memory 2."
    listed = memory_cli("--cwd", str(workspace), "list").stdout
    assert [line.split()[0] for line in listed.splitlines()] == ["2", "1"], listed
    assert "Memcached" not in listed
    assert "Redis" not in listed


def test_two_sessions_at_once_give_unique_ids_and_neither_takes_an_id_never_given(
    model_env: FakeModelServer, workspace: Path
) -> None:
    fake_model = model_env
    argv = ["--cwd", str(workspace), "--permission-mode", "bypassPermissions", "-p", "remember"]
    assert run_cli_process(argv, env=_scripted(fake_model, [{"text": PORT}])).exit_code == 0
    calls = [
        [{"text": f"{who} guessed an id.", "replaces": 50}]
        + [{"text": f"Fact {who}{n}: the {who} service uses port {n}."} for n in range(6)]
        for who in ("alpha", "beta")
    ]
    with FakeModelServer() as other:
        models = [fake_model, other]
        envs = [_scripted(model, call) for model, call in zip(models, calls, strict=True)]
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(lambda env: run_cli_process(argv, env=env), envs))
        assert [r.exit_code for r in results] == [0, 0], [r.stderr for r in results]
        said = [[r.tool_results()[0] for r in model.requests[1:]] for model in models]
    ids = [[_id_saved(s) for s in one[1:]] for one in said]
    for one, saved in zip(said, ids, strict=True):
        assert one[0].startswith("Error: There is no memory 50: "), one
        assert saved == sorted(saved), one  # each session's own, in order
    assert sorted(ids[0] + ids[1]) == list(range(2, 14)), said
    listed = memory_cli("--cwd", str(workspace), "list").stdout
    assert len(listed.splitlines()) == 13, listed
    assert "guessed" not in listed


def _scripted(model: FakeModelServer, calls: list[dict[str, object]]) -> dict[str, str]:
    """The environment of a session against `model`, scripted to make these MemorySave calls."""
    model.requests.clear()
    model.script(*(tool_use("MemorySave", **call) for call in calls), text("done"))
    return {**os.environ, "ANTHROPIC_BASE_URL": model.url, "OPENAI_BASE_URL": model.openai_base_url}


def _id_saved(said: str) -> int:
    found = re.match(r"Saved as memory (\d+)\.", said)
    assert found is not None, said
    return int(found[1])
