"""The search by meaning from the matrix held in the process: the same memories as
sqlite-vec's own scan, and never staler than the file (a memory saved or removed by another
process is seen by the next search)."""

from __future__ import annotations

from pathlib import Path

from tether.memory.store import MemoryStore

from .conftest import Endpoint


def test_a_search_sees_what_another_process_saved_and_removed_since_it_last_searched(
    endpoint: Endpoint, tmp_path: Path
) -> None:
    from tether.memory.embedders import HttpEmbedder

    path = tmp_path / "m.db"
    ours = MemoryStore(path, HttpEmbedder(endpoint.base_url, "tiny-embed"))
    theirs = MemoryStore(path, HttpEmbedder(endpoint.base_url, "tiny-embed"))
    dog = ours.save("Our dog is called Rex")
    assert [f.memory.id for f in ours.search("puppy")] == [dog.id]  # the matrix is read

    cat = theirs.save("The cat sleeps all day")
    assert [(f.memory.id, f.by) for f in ours.search("kitten")] == [(cat.id, "meaning")]
    theirs.remove([cat.id])
    assert ours.search("kitten") == []
    theirs.close()
    ours.close()


def test_memories_saved_by_words_get_their_vectors_and_are_then_found_by_meaning(
    endpoint: Endpoint, tmp_path: Path
) -> None:
    from tether.memory.embedders import HttpEmbedder

    path = tmp_path / "m.db"
    by_words = MemoryStore(path, None)
    first = by_words.save("The cat sleeps all day")
    ours = MemoryStore(path, HttpEmbedder(endpoint.base_url, "tiny-embed"))
    for _ in range(2):  # its vector made, then every memory known to have one
        assert [(f.memory.id, f.by) for f in ours.search("kitten")] == [(first.id, "meaning")]
    second = by_words.save("A kitten was adopted")  # another process, by words, after
    found = ours.search("kitten")
    assert {(f.memory.id, f.by) for f in found} == {(first.id, "meaning"), (second.id, "both")}
    by_words.close()
    ours.close()
