"""The memory store itself: words alone when there is no embedder, queries that FTS5's own
syntax would refuse, vectors added for memories saved without them, several processes
saving at once, a file of a newer schema refused."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tether.memory.embedders import local_embedder
from tether.memory.store import MemoryFileError, MemoryStore


def test_without_an_embedder_memories_are_found_by_words(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "m.db", None)
    saved = store.save("Run the tests with scripts/test", ("testing",))
    store.save("Deploy with make release")
    assert not store.by_meaning
    assert [(f.memory, f.by) for f in store.search("which tests to run?")] == [(saved, "words")]
    assert store.search("testing") == store.search("TESTING")
    assert store.search("shipping to live servers") == []


@pytest.mark.parametrize(
    "query", ['"', "AND (", "NEAR(a b", "*", "col:x", "a OR", "-", "   ", "é'\"); DROP TABLE x;--"]
)
def test_queries_in_fts_syntax_are_taken_as_words(tmp_path: Path, query: str) -> None:
    store = MemoryStore(tmp_path / "m.db", None)
    store.save('Quote " and AND ( NEAR col: x')
    assert isinstance(store.search(query), list)


def test_memories_saved_by_words_only_get_vectors_once_an_embedder_is_there(
    tmp_path: Path,
) -> None:
    path = tmp_path / "m.db"
    words_only = MemoryStore(path, None)
    words_only.save("Deploy to production with make release after the checklist.")
    words_only.close()
    both = MemoryStore(path, local_embedder())
    assert both.by_meaning
    found = both.search("shipping a new version to live servers")
    assert [(f.memory.id, f.by) for f in found] == [(1, "meaning")]


def test_several_processes_save_at_once_and_nothing_is_lost(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    MemoryStore(path, None).close()
    program = (
        "import sys; from pathlib import Path; from tether.memory.store import MemoryStore\n"
        "s = MemoryStore(Path(sys.argv[1]), None)\n"
        "for i in range(40): s.save(f'writer {sys.argv[2]} note {i}')\n"
    )
    writers = [
        subprocess.Popen([sys.executable, "-c", program, str(path), str(n)]) for n in range(3)
    ]
    assert [w.wait(timeout=120) for w in writers] == [0, 0, 0]
    store = MemoryStore(path, None)
    assert store.count() == 120
    assert len(store.search("writer 2 note", 200)) == 120


def test_a_file_of_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(MemoryFileError) as raised:
        MemoryStore(path, None)
    assert str(raised.value) == f"{path} was written by a newer tether (schema 99); upgrade tether"
