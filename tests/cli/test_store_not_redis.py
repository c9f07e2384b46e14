"""A store URL answered by something that is not a Redis server (an HTTP proxy answering
`400 Bad Request`, a listener that never answers): every command that opens a store says
"cannot reach the ... store at URL: what" and exits 2, never a traceback."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.testing.cli_runner import run_cli_process


def _listen(answer: bytes | None) -> Iterator[str]:
    """A loopback listener answering every read with `answer` (None: never answering); its
    `redis://` URL."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []

    def serve(conn: socket.socket) -> None:
        try:
            while conn.recv(4096) and answer is not None:
                conn.sendall(answer)
        except OSError:
            pass

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"redis://127.0.0.1:{server.getsockname()[1]}/0"
    finally:
        server.close()
        for conn in held:
            conn.close()


@pytest.fixture
def http_400() -> Iterator[str]:
    yield from _listen(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")


@pytest.fixture
def silent() -> Iterator[str]:
    yield from _listen(None)


COMMANDS = [
    (["tasks", "list"], "task"),
    (["tasks", "add", "x"], "task"),
    (["board", "--json"], "task"),
    (["worker", "--until-idle"], "task"),
    (["team", "status", "t"], "mailbox"),
    (["team", "send", "t", "alice", "hi"], "mailbox"),
    (["team", "up", "t", "--member", "alice"], "mailbox"),
]


@pytest.mark.parametrize(("argv", "kind"), COMMANDS, ids=lambda a: " ".join(a)[:20])
def test_a_non_redis_answer_is_the_stores_error_and_exit_2(
    argv: list[str], kind: str, http_400: str, workspace: Path, home: Path
) -> None:
    env = {**os.environ, "HOME": str(home), "TETHER_HOME": str(home / ".tether")}
    ran = run_cli_process([*argv, "--store", http_400], env=env, cwd=workspace)
    assert ran.exit_code == 2, ran.stderr
    assert "Traceback" not in ran.stderr
    assert ran.stderr.startswith(
        f"tether: error: cannot reach the {kind} store at {http_400}: what answers there is "
        "not a Redis server (Protocol Error: b'HTTP/1.1 400 Bad Request')"
    ), ran.stderr


def test_a_listener_that_never_answers_is_said_after_the_connect_timeout(
    silent: str, workspace: Path, home: Path
) -> None:
    env = {**os.environ, "HOME": str(home), "TETHER_HOME": str(home / ".tether")}
    ran = run_cli_process(["tasks", "list", "--store", silent], env=env, cwd=workspace)
    assert ran.exit_code == 2, ran.stderr
    assert ran.stderr.startswith(
        f"tether: error: cannot reach the task store at {silent}: no answer within 5 s ("
    ), ran.stderr
