"""Facts near in meaning are never replaced on likeness alone (distinct facts score as high
as 0.95 with the local model, corrections as low as 0.79): a new memory names those near it,
and the model replaces one only by naming its id (`replaces`). Sessions of `tether -p` against
the fake model, the local embedding model, `tether memory list`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tether.memory.embedders import local_embedder
from tether.memory.store import MemoryStore
from tether.testing import FakeModelServer, text, tool_use
from tether.testing.cli_runner import CliResult

from .conftest import memory_cli, undated

Run = Callable[..., CliResult]

DISTINCT = (
    ("The staging database is Postgres 15", "The production database is Postgres 15"),
    ("The API server listens on port 8080", "The admin server listens on port 8080"),
    ("Run unit tests with pytest tests/unit", "Run unit tests for the CLI with pytest tests/cli"),
    ("Alice owns the billing service", "Bob owns the billing service"),
    ("The frontend is written in TypeScript", "The backend is written in TypeScript"),
    ("Use ruff for linting the Python code", "Use ruff for formatting the Python code"),
    ("The release branch is called release/2.x", "The hotfix branch is called hotfix/2.x"),
    (
        "Secrets for staging live in AWS Secrets Manager",
        "Secrets for production live in AWS Secrets Manager",
    ),
    ("The user prefers tabs in Makefiles", "The user prefers spaces in Python files"),
    ("Never push directly to main", "Never force-push to main"),
    ("The payments service depends on Redis", "The payments service depends on Kafka"),
    ("Logs are shipped to Datadog", "Metrics are shipped to Datadog"),
    ("The iOS app uses Swift 5.9", "The Android app uses Kotlin 1.9"),
    ("CI runs on GitHub Actions for pull requests", "CI runs on GitHub Actions for nightly builds"),
    ("Port 5432 is used by Postgres locally", "Port 6379 is used by Redis locally"),
    ("The build uses Python 3.11", "The docs build uses Python 3.11"),
    ("Run the linter with make lint", "Run the type checker with make typecheck"),
    ("Do not edit files under vendor/", "Do not edit files under generated/"),
)
"""Pairs of facts both true at once (cosine 0.34-0.95 with the local model)."""
CORRECTIONS = (
    ("The API server listens on port 8080", "The API server listens on port 9090"),
    ("The user prefers tabs over spaces", "Actually the user prefers spaces, not tabs"),
    ("The staging database is Postgres 15", "The staging database was upgraded to Postgres 16"),
)
"""A fact, then its correction in other words (0.79-0.93)."""


def test_no_distinct_fact_is_lost_and_each_stale_fact_is_named_beside_its_correction(
    tmp_path: Path,
) -> None:
    store = MemoryStore(tmp_path / "m.db", local_embedder())
    for first, second in DISTINCT:
        store.save(first)
        store.save(second)
    kept = {m.text for m in store.list()}
    assert kept == {t for pair in DISTINCT for t in pair}  # every one of the 36 (it lost 6)
    store.close()
    store = MemoryStore(tmp_path / "c.db", local_embedder())
    for stale, correction in CORRECTIONS:
        old = store.save(stale)
        new = store.save(correction)
        assert new.id != old.id
        assert old.id in [n.id for n in new.near], (correction, new.near)


def test_the_model_replaces_a_stale_fact_by_its_id_and_only_then(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    fake_model.script(
        tool_use("MemorySave", text="The frontend is written in TypeScript", tags=["web"]),
        tool_use("MemorySave", text="The backend is written in TypeScript"),  # 0.92: kept
        tool_use("MemorySave", text="The API server listens on port 8080", tags=["api"]),
        tool_use("MemorySave", text="The API server listens on port 9090"),  # 0.79: named
        # The model reads the note and says the new one replaces memory 3.
        tool_use("MemorySave", text="The API server listens on port 9090", replaces=3),
        # A correction saved with the id at once: the memory keeps its id, its tags.
        tool_use("MemorySave", text="The frontend is written in Elm", tags=["elm"], replaces=1),
        tool_use("MemorySave", text="Deploy with make release", replaces=99),
        tool_use("MemorySearch", query="port"),
        text("done"),
    )
    result = tether("-p", "remember these")
    assert result.exit_code == 0, result.stderr
    results = [r.tool_results()[0] for r in fake_model.requests[1:]]
    assert results[0] == "Saved as memory 1."
    assert results[1].startswith(
        "Saved as memory 2.\n\nSaved before, near in meaning or on the same subject (kept as "
        "they are):\n"
        "- Memory 1: The frontend is written in TypeScript\n\n"
        "If the new memory corrects or supersedes one of these"
    )
    assert results[3].startswith(
        "Saved as memory 4.\n\nSaved before, near in meaning or on the same subject (kept as "
        "they are):\n"
        "- Memory 3: The API server listens on port 8080\n"
    )
    assert results[4] == (
        'Memory 3 ("The API server listens on port 8080") is removed: memory 4 already says this.'
    )
    assert results[5] == (
        'Saved as memory 1, replacing its earlier text: "The frontend is written in TypeScript".'
    )
    assert results[6].startswith(  # an id never given: refused, nothing saved
        "Error: There is no memory 99: no memory of this project ever had that id (the "
        "highest given is 4). Nothing was saved."
    )
    # Memory 4 keeps its own tags (none), not those of the memory it stood in for.
    assert undated(results[7]) == "Memory 4: The API server listens on port 9090"
    listed = memory_cli("--cwd", str(workspace), "list")
    assert listed.exit_code == 0, listed.stderr
    assert "8080" not in listed.stdout
    for kept in (
        "The frontend is written in Elm",
        "The backend is written in TypeScript",
        "The API server listens on port 9090",
    ):
        assert kept in listed.stdout
    assert "Deploy with make release" not in listed.stdout
    elm = memory_cli("--cwd", str(workspace), "search", "Elm")
    [line] = elm.stdout.splitlines()  # its words are the new text's; its id, tags kept
    assert line.startswith("    1  "), elm.stdout
    assert "[web, elm]" in line
    assert "TypeScript" not in line


OLD_PORT, NEW_PORT = "The API server listens on port 8080.", "The API server listens on port 9090."


def test_the_newer_of_two_near_facts_ranks_above_the_stale_one_unless_the_words_say_otherwise(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.script(
        tool_use("MemorySave", text="Run the tests with scripts/test."),
        tool_use("MemorySave", text=OLD_PORT),
        text("saved"),
    )
    assert tether("-p", "remember this").exit_code == 0
    fake_model.requests.clear()
    fake_model.script(tool_use("MemorySave", text=NEW_PORT), text("saved"))  # no `replaces`
    assert tether("-p", "the port changed").exit_code == 0
    [said] = fake_model.requests[1].tool_results()
    assert f"- Memory 2: {OLD_PORT}" in said  # named near it, kept beside it
    fake_model.requests.clear()
    fake_model.script(
        tool_use("MemorySearch", query="which port does the API server listen on", limit=1),
        tool_use("MemorySearch", query="API server port"),
        tool_use("MemorySearch", query="port 8080"),
        text("done"),
    )
    assert tether("-p", "what port?").exit_code == 0
    found = [undated(r.tool_results()[0]) for r in fake_model.requests[1:]]
    assert found[0] == f"Memory 3: {NEW_PORT}"  # was memory 2, the stale port
    assert found[1].startswith(f"Memory 3: {NEW_PORT}\n\nMemory 2: {OLD_PORT}"), found[1]
    assert found[2].startswith(f"Memory 2: {OLD_PORT}"), found[2]  # only it says 8080


def test_a_rewritten_memory_ranks_as_new_above_an_older_near_one(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "memory.db", local_embedder())
    assert store.save("We use Python 3.10 for the project.").id == 1
    assert store.save("We use Python 3.11 for the project.").id == 2
    assert store.save("We use Python 3.12 for the project.", replaces=1).replaced is not None
    found = store.search("which Python version does the project use", limit=2)
    assert [f.memory.id for f in found] == [1, 2], found
    store.close()
