"""A small MCP server over streamable HTTP (or the older SSE transport) on 127.0.0.1, built on
the SDK's own `MCPServer`: for tests and the bench.

`demo_server()` has a few tools (`add`, `echo`, `image`, `fail`, `sleep`), two resources and a
prompt. `McpHttpServer` serves it (or any `MCPServer`) from a background thread on a free port:

```python
with McpHttpServer() as server:
    config = ServerConfig("demo", HttpTransport(server.url), "user", Path("x"))
```

Run it as a process with `python -m tether.testing.mcp_http_server [--port N] [--sse]`: it prints
its URL on the first line of stdout and serves until killed. (The SDK's `MCPServer` configures
the root logger when no handler is set, so a process of its own keeps that out of the caller.)
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import socket
import sys
import threading
import time
from collections.abc import Mapping
from types import TracebackType
from typing import Literal

import anyio
import uvicorn
from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from starlette.types import ASGIApp, Receive, Scope, Send

PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
"""A 1x1 PNG: what the `image` tool returns."""

HttpKind = Literal["http", "sse"]


def demo_server(name: str = "tether-demo") -> MCPServer:
    """An `MCPServer` with one of each thing a client has to handle."""
    server = MCPServer(name, log_level="WARNING")
    read_only = ToolAnnotations(read_only_hint=True)

    @server.tool(annotations=read_only)
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool(annotations=read_only)
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text

    @server.tool(annotations=read_only)
    def image() -> Image:
        """A one-pixel PNG."""
        return Image(data=PIXEL_PNG, format="png")

    @server.tool()
    def fail(message: str) -> str:
        """Fail with the message (the result has isError set)."""
        raise ToolError(message)

    @server.tool()
    async def sleep(seconds: float) -> str:
        """Sleep, then say how long: for timeouts and cancellation."""
        await anyio.sleep(seconds)
        return f"slept {seconds} s"

    @server.resource("test://greeting", name="greeting", mime_type="text/plain")
    def greeting() -> str:
        return "hello from the demo server"

    @server.resource("test://pixel", name="pixel", mime_type="image/png")
    def pixel() -> bytes:
        return PIXEL_PNG

    @server.prompt()
    def review(code: str) -> str:
        """Ask for a review of some code."""
        return f"Please review this code:\n{code}"

    return server


class McpHttpServer:
    """Serves an `MCPServer` on 127.0.0.1 from a thread with an event loop of its own."""

    def __init__(
        self,
        server: MCPServer | None = None,
        *,
        kind: HttpKind = "http",
        host: str = "127.0.0.1",
        port: int = 0,
        required_headers: Mapping[str, str] | None = None,
    ) -> None:
        """`required_headers`: requests without them (exactly) are refused with 401."""
        self.server = server if server is not None else demo_server()
        self.kind: HttpKind = kind
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        self.host, self.port = self._socket.getsockname()[:2]
        app = (
            self.server.sse_app(host=host)
            if kind == "sse"
            else self.server.streamable_http_app(host=host)
        )
        if required_headers:
            app = _requiring(required_headers, app)
        config = uvicorn.Config(
            app, log_level="warning", lifespan="on", timeout_graceful_shutdown=1
        )
        self._uvicorn = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._serve, name="mcp-http-server", daemon=True)

    @property
    def url(self) -> str:
        path = "/sse" if self.kind == "sse" else "/mcp"
        return f"http://{self.host}:{self.port}{path}"

    def start(self, timeout_s: float = 10.0) -> None:
        """Start serving; returns once the server accepts connections."""
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._uvicorn.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the MCP test server did not start on {self.url}")
            time.sleep(0.01)

    def stop(self) -> None:
        """Stop serving and wait for the thread (open streams are cut after a second)."""
        self._uvicorn.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        self._socket.close()

    def _serve(self) -> None:
        asyncio.run(self._uvicorn.serve(sockets=[self._socket]))

    def __enter__(self) -> McpHttpServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _requiring(headers: Mapping[str, str], app: ASGIApp) -> ASGIApp:
    wanted = {name.lower().encode(): value.encode() for name, value in headers.items()}

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            sent = dict(scope["headers"])
            if any(sent.get(name) != value for name, value in wanted.items()):
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"unauthorized"})
                return
        await app(scope, receive, send)

    return guarded


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--sse", action="store_true", help="the older SSE transport")
    args = parser.parse_args(argv)
    server = McpHttpServer(kind="sse" if args.sse else "http", port=args.port)
    server.start()
    print(server.url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
