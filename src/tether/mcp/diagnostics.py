"""What a connection keeps to explain its failures (a stdio server's stderr, an HTTP server's
last error status), apart from the MCP SDK so that a connection that never uses it never loads
it."""

from __future__ import annotations

import os
import tempfile
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

    async def note_response(self, response: Any) -> None:
        """An httpx response hook. Only requests count: a GET stream is optional."""
        if response.status_code >= 400 and response.request.method == "POST":
            self.http_error = f"HTTP {response.status_code} {response.reason_phrase}".strip()

    def close(self) -> None:
        if self.errlog is not None:
            self.errlog.close()
