"""Memory embedding through an OpenAI-compatible `/v1/embeddings` endpoint: a small HTTP
server of the test's own, on loopback, answering as the API does."""

from __future__ import annotations

from pathlib import Path

from tether.memory.embedders import HttpEmbedder, configured_embedder
from tether.memory.store import MemoryStore

from .conftest import Endpoint, refused_url


def test_memories_are_embedded_by_the_configured_endpoint(
    endpoint: Endpoint, tmp_path: Path
) -> None:
    env = {
        "TETHER_MEMORY_EMBEDDINGS_URL": endpoint.base_url,
        "TETHER_MEMORY_EMBEDDINGS_MODEL": "tiny-embed",
        "TETHER_MEMORY_EMBEDDINGS_KEY_ENV": "EMBED_KEY",
        "EMBED_KEY": "k-123",
    }
    embedder = configured_embedder(env)
    assert isinstance(embedder, HttpEmbedder)
    store = MemoryStore(tmp_path / "m.db", embedder)
    store.save("Our dog is called Rex")
    store.save("The cat sleeps all day")
    found = store.search("puppy")
    assert [(f.memory.text, f.by) for f in found] == [("Our dog is called Rex", "meaning")]
    paths_and_keys = {(path, key) for path, key, _ in endpoint.requests}
    assert paths_and_keys == {("/v1/embeddings", "Bearer k-123")}
    assert [body for _, _, body in endpoint.requests][-1] == {
        "model": "tiny-embed",
        "input": ["puppy"],
    }


def test_a_save_while_the_endpoint_fails_is_kept_by_words_and_embedded_once_it_answers(
    endpoint: Endpoint, tmp_path: Path
) -> None:
    store = MemoryStore(tmp_path / "m.db", HttpEmbedder(endpoint.base_url, "tiny-embed"))
    endpoint.status = 500
    saved = store.save("Our dog is called Rex")
    why = (
        f"cannot embed for memory: {endpoint.base_url}/embeddings answered 500: "
        '{"error": {"message": "overloaded"}}'
    )
    assert store.embedding_problem == why
    assert store.list() == [saved]
    found = store.search("where is Rex?")
    assert [(f.memory.text, f.by) for f in found] == [("Our dog is called Rex", "words")]
    assert found.words_only == why

    endpoint.status = 200
    again = MemoryStore(tmp_path / "m.db", HttpEmbedder(endpoint.base_url, "tiny-embed"))
    found = again.search("puppy")
    assert [(f.memory.text, f.by) for f in found] == [("Our dog is called Rex", "meaning")]
    assert found.words_only is None
    assert again.embedding_problem is None


def test_a_store_tries_the_endpoint_again_after_its_retry_delay(
    endpoint: Endpoint, tmp_path: Path
) -> None:
    store = MemoryStore(
        tmp_path / "m.db", HttpEmbedder(endpoint.base_url, "tiny-embed"), retry_after=0
    )
    endpoint.status = 500
    store.save("The cat sleeps all day")
    assert store.search("kitten").words_only is not None
    endpoint.status = 200
    found = store.search("kitten")
    assert [(f.memory.text, f.by) for f in found] == [("The cat sleeps all day", "meaning")]


def test_an_endpoint_that_is_not_there_leaves_memory_by_words_and_says_why(
    tmp_path: Path, refused_port: int
) -> None:
    url = refused_url(refused_port)
    store = MemoryStore(tmp_path / "m.db", HttpEmbedder(url, "tiny-embed"))
    assert store.list() == []  # listing never embeds
    saved = store.save("The cache lives in /var/cache/app")
    found = store.search("cache")
    assert [f.memory for f in found] == [saved]
    assert found.words_only is not None
    assert found.words_only.startswith(f"cannot embed for memory: {url}/embeddings: ")
    assert "refused" in found.words_only.lower()
    assert store.remove([saved.id]) == [saved.id]
