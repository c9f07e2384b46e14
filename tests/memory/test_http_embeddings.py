"""Memory embedding through an OpenAI-compatible `/v1/embeddings` endpoint: a small HTTP
server of the test's own, on loopback, answering as the API does."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tether.memory.embedders import HttpEmbedder, configured_embedder
from tether.memory.store import MemoryFileError, MemoryStore

TOPICS = (("dog", "puppy"), ("cat", "kitten"))


def _vector(text: str) -> list[float]:
    """A topic's axis (scaled: the client normalises), or the last axis."""
    for axis, words in enumerate(TOPICS):
        if any(w in text.lower() for w in words):
            return [3.0 if i == axis else 0.0 for i in range(3)]
    return [0.0, 0.0, 2.0]


class Endpoint(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[tuple[str, str | None, dict[str, Any]]] = []
        self.status = 200

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: Endpoint

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((self.path, self.headers.get("Authorization"), body))
        if self.server.status != 200:
            payload = b'{"error": {"message": "overloaded"}}'
        else:
            data = [
                {"object": "embedding", "index": i, "embedding": _vector(t)}
                for i, t in reversed(list(enumerate(body["input"])))
            ]
            payload = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
        self.send_response(self.server.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    server = Endpoint()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


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


def test_an_endpoint_that_fails_gives_a_clear_error(endpoint: Endpoint, tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "m.db", HttpEmbedder(endpoint.base_url, "tiny-embed"))
    endpoint.status = 500
    with pytest.raises(MemoryFileError) as raised:
        store.save("Our dog is called Rex")
    assert str(raised.value) == (
        f"cannot embed for memory: {endpoint.base_url}/embeddings answered 500: "
        '{"error": {"message": "overloaded"}}'
    )
    assert store.list() == []


def test_an_endpoint_that_is_not_there_gives_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(MemoryFileError) as raised:
        MemoryStore(tmp_path / "m.db", HttpEmbedder(url, "tiny-embed"))
    assert str(raised.value).startswith(f"cannot embed for memory: {url}/embeddings: ")
    assert "refused" in str(raised.value).lower()
