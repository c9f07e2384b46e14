"""A fact saved again in other words is kept once (the newer text), by meaning with the local
MiniLM embedder; distinct facts about the same things are kept apart; without an embedder only
the same text is recognised; a file's pieces are never merged."""

from __future__ import annotations

from pathlib import Path

import pytest

from tether.memory.embedders import local_embedder
from tether.memory.store import MemoryStore

SAME = [  # measured cosines (restated.py): 0.88-0.96
    ("Deploys go through the blue-green pipeline", "Deployments use the blue-green pipeline"),
    ("Run the tests with pytest -n 4", "The tests are run with pytest -n 4"),
    ("The user prefers tabs over spaces", "The user likes tabs rather than spaces"),
    ("The API server lives in src/server/api.py", "src/server/api.py holds the API server"),
    (
        "The database migrations are in db/migrations",
        "Database migrations live under db/migrations",
    ),
    ("Run the tests with pytest -n 4", "Run the tests with pytest -n 8"),  # an update
]
APART = [  # measured cosines: 0.21-0.81
    (
        "Run unit tests with pytest tests/unit",
        "Run integration tests with pytest tests/integration",
    ),
    ("The staging database is Postgres 15", "The production database is Postgres 16"),
    ("The main branch is protected", "The release branch is protected"),
    ("The database migrations are in db/migrations", "The database seeds are in db/seeds"),
    ("CI runs on GitHub Actions", "CI runs on GitLab CI"),
]


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    embedder = local_embedder()
    assert embedder is not None
    return MemoryStore(tmp_path / "m.db", embedder, apart=frozenset({"memory.md"}))


@pytest.mark.parametrize(("first", "second"), SAME)
def test_the_same_fact_in_other_words_is_kept_once_as_the_newer_text(
    store: MemoryStore, first: str, second: str
) -> None:
    kept = store.save(first, ("one",))
    again = store.save(second, ("two",))
    assert (again.id, again.replaced, again.tags) == (kept.id, first, ("one", "two"))
    assert [(m.id, m.text) for m in store.list()] == [(kept.id, second)]
    [found] = store.search(second)
    assert (found.memory.text, found.by) == (second, "both")
    by_words = store.search(second.split()[-1])  # its words are the new ones
    assert [f.memory.text for f in by_words] == [second]


@pytest.mark.parametrize(("first", "second"), APART)
def test_distinct_facts_about_the_same_things_are_kept_apart(
    store: MemoryStore, first: str, second: str
) -> None:
    store.save(first)
    again = store.save(second)
    assert again.replaced is None
    assert [m.text for m in store.list()] == [second, first]


def test_without_an_embedder_only_the_same_text_is_recognised(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "m.db", None)
    first, second = SAME[0]
    store.save(first)
    assert store.save(f" {first} ").already
    assert store.save(second).replaced is None
    assert [m.text for m in store.list()] == [second, first]


def test_a_files_pieces_are_neither_replaced_nor_replacing(store: MemoryStore) -> None:
    first, second = SAME[0]
    store.save(first, ("memory.md",))
    assert store.save(second).replaced is None  # not taken for the piece's restatement
    assert store.save(f"{first}.", ("memory.md",)).replaced is None  # a piece replaces none
    assert len(store.list()) == 3
