"""A real `redis-server` on 127.0.0.1, on a free port, for tests and benchmarks.

`scripts/test` starts one for the whole run and names it in `TETHER_TEST_REDIS_URL`;
`redis_url()` uses that, or starts a server of its own when none was given (a test run by
hand), or says why there is none.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

REDIS_URL_ENV = "TETHER_TEST_REDIS_URL"


class RedisUnavailable(Exception):
    """No Redis server for the tests: the message says why."""


class RedisServer:
    """One redis-server process, in its own process group, stopped by its id."""

    def __init__(self, port: int, proc: subprocess.Popen[bytes], workdir: Path) -> None:
        self.port, self._proc, self._workdir = port, proc, workdir
        self.url = f"redis://127.0.0.1:{port}/0"
        self.persistent = False

    @property
    def workdir(self) -> Path:
        return self._workdir

    def kill(self) -> None:
        """SIGKILL, as a crash: its directory is kept, for `start(port=..., workdir=...)`."""
        if self._proc.poll() is None:
            os.killpg(self._proc.pid, signal.SIGKILL)
            self._proc.wait()
        if self._proc.stderr is not None:
            self._proc.stderr.close()

    @classmethod
    def start(
        cls,
        binary: str | None = None,
        *,
        timeout_s: float = 10.0,
        port: int | None = None,
        workdir: Path | None = None,
        persist: bool = False,
        password: str | None = None,
    ) -> RedisServer:
        """A new server. `persist`: every write kept in an append-only file, fsync'd each
        time, and reloaded by a server started again on its `port` and `workdir` after a
        `kill()`: a crash and restart that keeps the data, as a production Redis would.
        `password`: the default user needs it (`requirepass`)."""
        program = binary or shutil.which("redis-server")
        if program is None:
            raise RedisUnavailable(
                "redis-server is not installed (scripts/test installs Debian's redis-server)"
            )
        workdir = workdir or Path(tempfile.mkdtemp(prefix="tether-redis-"))
        port = port or _free_port()
        proc = subprocess.Popen(
            [
                program,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes" if persist else "no",
                "--appendfsync",
                "always",
                "--dir",
                str(workdir),
                "--protected-mode",
                "yes",
                *(["--requirepass", password] if password else []),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        server = cls(port, proc, workdir)
        server.persistent = persist
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                error = (proc.stderr.read() if proc.stderr else b"").decode(errors="replace")
                raise RedisUnavailable(f"redis-server exited at start: {error.strip()}")
            if _answers(port):
                return server
            time.sleep(0.02)
        server.stop()
        raise RedisUnavailable(f"redis-server did not answer on port {port} in {timeout_s} s")

    def stop(self) -> None:
        if self._proc.poll() is None:
            os.killpg(self._proc.pid, signal.SIGTERM)
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self._proc.pid, signal.SIGKILL)
                self._proc.wait()
        if self._proc.stderr is not None:
            self._proc.stderr.close()
        shutil.rmtree(self._workdir, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            answer = sock.recv(16)
            return answer.startswith((b"+PONG", b"-NOAUTH"))  # up, asking for a password
    except OSError:
        return False
