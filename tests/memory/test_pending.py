"""Memories kept aside while the memory file cannot be used: appended whole, a line cut by a
crash never swallowing the next, added once each at the next opening, nothing dropped."""

from __future__ import annotations

from pathlib import Path

from tether.memory.pending import add_pending, keep, pending_path
from tether.memory.store import MemoryStore


def test_kept_memories_are_added_once_and_a_cut_line_is_kept_aside(tmp_path: Path) -> None:
    memory_file = tmp_path / "memory.db"
    keep(memory_file, "first fact", ("a",), "damaged")
    with pending_path(memory_file).open("ab") as f:
        f.write(b'{"text": "cut by a cra')  # a crash mid-line
    keep(memory_file, "second fact", (), "disk full")
    keep(memory_file, "first fact", ("a",), "damaged")  # saved twice by the model
    store = MemoryStore(memory_file, None)
    try:
        assert add_pending(store) == 2
        assert [(m.text, m.tags) for m in reversed(store.list())] == [
            ("first fact", ("a",)),
            ("second fact", ()),
        ]
        assert add_pending(store) == 0
    finally:
        store.close()
    assert pending_path(memory_file).read_bytes() == b""
    aside = pending_path(memory_file).with_name("memory.db.pending.jsonl.unreadable")
    assert aside.read_bytes() == b'{"text": "cut by a cra\n'


def test_a_kept_replacement_of_an_id_never_given_is_added_beside_the_others(
    tmp_path: Path,
) -> None:
    path = tmp_path / "memory.db"
    store = MemoryStore(path, None)
    store.save("The API server listens on port 8080.")
    keep(path, "The cache lives in Redis.", (), "the file was damaged", replaces=9)
    assert add_pending(store) == 1  # raised NeverGiven: the kept text stayed kept
    assert [(m.id, m.text) for m in store.list()] == [
        (2, "The cache lives in Redis."),
        (1, "The API server listens on port 8080."),
    ]
    assert pending_path(path).read_text() == ""
    store.close()
