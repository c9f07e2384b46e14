"""What a connection keeps to explain its failures (a stdio server's stderr, an HTTP server's
last error status), apart from the MCP SDK so that a connection that never uses it never loads
it."""

from __future__ import annotations

import os
import signal
import tempfile
from pathlib import Path
from typing import Any, TextIO

from tether.mcp.servers import ServerConfig, StdioTransport

STDERR_TAIL_CHARS = 4096
"""How much of a server's stderr is read back for a failure message."""


class Diagnostics:
    """What a connection keeps to explain its failures: a stdio server's stderr (in an unnamed
    temporary file: nothing reaches the terminal, and all of it is there once the process has
    exited, where a pipe could still hold the last lines), and the last HTTP error status an
    HTTP server answered a request with (the SDK reports most as "Server returned an error
    response")."""

    def __init__(self, config: ServerConfig) -> None:
        self.errlog: TextIO | None = None
        if isinstance(config.transport, StdioTransport):
            # Append mode, so that reading it back never moves where the server writes. It
            # lives as long as the connection: close() closes it.
            self.errlog = tempfile.TemporaryFile(  # noqa: SIM115
                mode="a+", encoding="utf-8", errors="replace"
            )
        self.http_error: str | None = None

    def stderr_tail(self, lines: int = 3) -> str:
        """The last non-blank lines the server wrote to stderr, joined into one line."""
        if self.errlog is None or self.errlog.closed:
            return ""
        fd = self.errlog.fileno()
        size = os.fstat(fd).st_size
        data = os.pread(fd, STDERR_TAIL_CHARS, max(0, size - STDERR_TAIL_CHARS))
        text = data.decode("utf-8", errors="replace")
        kept = [line.strip() for line in text.splitlines() if line.strip()][-lines:]
        return " | ".join(kept)

    def stop_server(self) -> bool:
        """Send SIGTERM to the stdio server's process group now (a server that has not
        answered its handshake has nothing to finish: the SDK's close would give it 2 s after
        closing its stdin, which a hung server never reads). Whether one was found; not where
        `/proc` cannot tell which child is the server (the SDK's close ends it then)."""
        group = self._server_group()
        if group is None:
            return False
        try:
            os.killpg(group, signal.SIGTERM)
        except OSError:  # gone already
            return False
        return True

    def server_running(self) -> bool | None:
        """Whether the stdio server's process is running (an exited one holds no stderr);
        None where `/proc` cannot tell, or for a server that is no process of ours."""
        if self.errlog is None or self.errlog.closed or not os.path.isdir("/proc/self/task"):
            return None
        return self._server_group() is not None

    def _server_group(self) -> int | None:
        """The process group of the server: the child of this process whose stderr is this
        connection's file (the SDK starts each server as the leader of a session of its own)."""
        if self.errlog is None or self.errlog.closed:
            return None
        mine = os.fstat(self.errlog.fileno())
        try:
            threads = os.listdir("/proc/self/task")
        except OSError:
            return None
        for thread in threads:
            try:
                children = Path(f"/proc/self/task/{thread}/children").read_text().split()
            except OSError:
                continue
            for child in children:
                try:
                    stderr = os.stat(f"/proc/{child}/fd/2")
                    group = os.getpgid(int(child))
                except (OSError, ValueError):
                    continue
                same = (stderr.st_dev, stderr.st_ino) == (mine.st_dev, mine.st_ino)
                if same and group == int(child) and group != os.getpgrp():
                    return group
        return None

    async def note_response(self, response: Any) -> None:
        """An httpx response hook. Only requests count: a GET stream is optional."""
        if response.status_code >= 400 and response.request.method == "POST":
            self.http_error = f"HTTP {response.status_code} {response.reason_phrase}".strip()

    async def note_sse_response(self, response: Any) -> None:
        """The same hook for the older SSE transport, whose GET stream is the connection
        itself: a refusal of either request counts."""
        if response.status_code >= 400:
            self.http_error = f"HTTP {response.status_code} {response.reason_phrase}".strip()

    def close(self) -> None:
        if self.errlog is not None:
            self.errlog.close()
