"""A proxy from the environment that fails the connection is named in the error, with the
variable it came from and without its credentials: the user was sent to look at the model's
host (`cannot reach http://model.example.test: Connection reset by peer`) when the proxy was
the hop that failed. A real proxy port that resets every connection, a real session."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable, Iterator

import pytest

from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


@pytest.fixture
def resetting_proxy() -> Iterator[int]:
    """A loopback port that resets every connection as soon as it is made; its port."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            conn.recv(65536)  # the request line (CONNECT or a proxied POST) arrives first
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()  # with no lingering: a reset

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    listener.close()
    thread.join(timeout=10)


@pytest.mark.parametrize(
    ("base_url", "variable"),
    [("http://model.example.test", "HTTP_PROXY"), ("https://model.example.test", "HTTPS_PROXY")],
)
def test_a_proxy_that_resets_is_named_with_its_variable(
    tether: Run,
    monkeypatch: pytest.MonkeyPatch,
    resetting_proxy: int,
    base_url: str,
    variable: str,
) -> None:
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, f"http://user:secret@127.0.0.1:{resetting_proxy}")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", base_url)
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")
    result = tether("-p", "hi")
    assert (result.exit_code, result.stdout) == (1, ""), result.stderr
    said = [line for line in result.stderr.splitlines() if "cannot reach" in line]
    assert len(said) == 1, result.stderr
    assert (
        f"cannot reach {base_url} through the proxy http://127.0.0.1:{resetting_proxy} "
        f"(from {variable}): "
    ) in said[0]
    assert "secret" not in result.stderr
