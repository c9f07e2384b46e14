"""Running `tether memory` in this process (TETHER_HOME is the test's); an OpenAI-compatible
`/v1/embeddings` endpoint of the tests' own, on loopback, answering as the API does."""

from __future__ import annotations

import contextlib
import io
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tether.testing import FakeModelServer, text, tool_use
from tether.testing.cli_runner import CliResult


def memory_cli(*argv: str) -> CliResult:
    from tether.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["memory", *argv])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 2
    return CliResult(code, out.getvalue(), err.getvalue())


TOPICS = (("dog", "puppy"), ("cat", "kitten"))


def _vector(text: str) -> list[float]:
    """A topic's axis (scaled: the client normalises), or the last axis."""
    for axis, words in enumerate(TOPICS):
        if any(w in text.lower() for w in words):
            return [3.0 if i == axis else 0.0 for i in range(3)]
    return [0.0, 0.0, 2.0]


class Endpoint(ThreadingHTTPServer):
    """`hanging`: a request is read and never answered (until `release`), as a firewalled or
    overloaded endpoint does; `hung` counts those. `delay_s`: each answer comes that late
    (a remote endpoint paying DNS and TLS first)."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[tuple[str, str | None, dict[str, Any]]] = []
        self.status = 200
        self.hanging = False
        self.hung = 0
        self.delay_s = 0.0
        self.released = threading.Event()

    def release(self) -> None:
        """Answer again; the requests left hanging end without an answer."""
        self.hanging = False
        self.released.set()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: Endpoint

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append((self.path, self.headers.get("Authorization"), body))
        if self.server.hanging:
            self.server.hung += 1
            self.server.released.wait()
            self.close_connection = True
            return
        if self.server.delay_s:
            time.sleep(self.server.delay_s)
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
        server.release()
        server.shutdown()
        server.server_close()
        thread.join()


def save_in_a_session(
    fake_model: FakeModelServer, tether: Callable[..., CliResult], memory: str
) -> None:
    """A `tether -p` session whose model saves `memory` (MemorySave)."""
    fake_model.script(tool_use("MemorySave", text=memory), text("saved"))
    assert tether("-p", "remember this").exit_code == 0
    assert fake_model.requests[1].tool_results() == ["Saved as memory 1."]
    fake_model.requests.clear()


def use_endpoint(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    """Memory embeds through the endpoint at `url` (its base, up to `/v1`)."""
    monkeypatch.setenv("TETHER_MEMORY_EMBEDDINGS_URL", url)
    monkeypatch.setenv("TETHER_MEMORY_EMBEDDINGS_MODEL", "tiny-embed")


def refused_url(port: int) -> str:
    """An endpoint's base URL on a loopback port that refuses connections (`refused_port`)."""
    return f"http://127.0.0.1:{port}/v1"


_SAVED = re.compile(r" \(saved \d{4}-\d\d-\d\d \d\d:\d\d UTC\)")


def undated(shown: str | list[str]) -> Any:
    """What the model was shown of memories without the times they were saved, where a test
    is about something else (`test_memory_dates.py` checks them)."""
    if isinstance(shown, list):
        return [_SAVED.sub("", s) for s in shown]
    return _SAVED.sub("", shown)
