"""HTTP plumbing for the fake server: a loopback threading server and a request handler.

The handler only moves bytes: it reads a request and offers JSON, chunked-stream and drop
primitives; `FakeModelServer` decides what to say. Streams use HTTP/1.1 chunked encoding so
that a dropped connection leaves a truly incomplete body, as a network failure would.
"""

from __future__ import annotations

import contextlib
import json
import selectors
import socket
import socketserver
import sys
import threading
import time
from collections.abc import Callable, Generator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class BodyCut(Exception):
    """The client closed its connection before the whole request body arrived."""


class RequestHandler(BaseHTTPRequestHandler):
    """One connection; keeps it alive between requests like the real APIs."""

    protocol_version = "HTTP/1.1"
    # Streams are many small writes: without this, Nagle's algorithm and delayed ACKs hold
    # each response back by tens of milliseconds, which real servers do not.
    disable_nagle_algorithm = True

    def do_POST(self) -> None:
        self._answer()

    def do_GET(self) -> None:
        self._answer()

    def _answer(self) -> None:
        server = self.server
        assert isinstance(server, LoopbackServer)
        server.answer(self)

    def log_message(self, format: str, *args: Any) -> None:
        """Silent: tests read the request log instead."""

    def header_map(self) -> dict[str, str]:
        """Request headers with lower-case names."""
        return {name.lower(): value for name, value in self.headers.items()}

    def read_body(self) -> bytes:
        """The whole request body, sent with a length or chunked.

        Raises `BodyCut` when the client closes before the body it announced has arrived
        (a client that cancelled its call between writing the headers and the body): the
        API never sees such a request, so it is neither answered nor judged."""
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            parts: list[bytes] = []
            while True:
                line = self.rfile.readline()
                if not line.endswith(b"\n"):
                    raise BodyCut
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(parts)
                parts.append(self._read_exactly(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self._read_exactly(length) if length else b""

    def _read_exactly(self, size: int) -> bytes:
        data = self.rfile.read(size)
        if len(data) < size:
            raise BodyCut
        return data

    def send_json(
        self, status: int, body: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> None:
        """A complete JSON response."""
        payload = json.dumps(body).encode()
        self._start(
            status, "application/json", {**(headers or {}), "Content-Length": str(len(payload))}
        )
        self.wfile.write(payload)

    def send_headers_then_drop(self, headers: Mapping[str, str]) -> None:
        """Promise a JSON body, then close before sending it."""
        self._start(200, "application/json", {**headers, "Content-Length": "1024"})
        self.drop()

    def start_stream(self, headers: Mapping[str, str]) -> None:
        """Begin a server-sent-events response."""
        self._start(
            200,
            "text/event-stream; charset=utf-8",
            {**headers, "Cache-Control": "no-cache", "Transfer-Encoding": "chunked"},
        )

    def send_chunk(self, data: bytes) -> None:
        """One event, as its own chunk so the client sees it at once."""
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def end_stream(self) -> None:
        """The terminating chunk: the body is complete."""
        self.wfile.write(b"0\r\n\r\n")

    def hold_silent(
        self, stopping: threading.Event, keepalive: bytes = b"", every_s: float = 0.0
    ) -> None:
        """Send nothing more (with `keepalive`, that chunk every `every_s` seconds and nothing
        else) until the client gives up (closes the connection) or `stopping` is set, then
        close: an endpoint that stalls with the connection open."""
        next_at = time.monotonic() + every_s
        with selectors.DefaultSelector() as selector:
            selector.register(self.connection, selectors.EVENT_READ)
            while not stopping.is_set():
                if keepalive and time.monotonic() >= next_at:
                    try:
                        self.send_chunk(keepalive)
                        self.wfile.flush()
                    except OSError:
                        break
                    next_at += every_s
                if selector.select(timeout=min(0.05, every_s) if keepalive else 0.05):
                    try:
                        if not self.connection.recv(1, socket.MSG_PEEK):
                            break  # the client closed its end
                    except OSError:
                        break
                    stopping.wait(0.05)  # pipelined bytes: keep ignoring them
        self.drop()

    def drop(self) -> None:
        """Close the connection now, whatever the response still owes."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)

    def _start(self, status: int, content_type: str, headers: Mapping[str, str]) -> None:
        self.send_response(status, _REASONS.get(status))
        self.send_header("Content-Type", content_type)
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()


# Statuses Python's table lacks, with the reason phrase the APIs send.
_REASONS = {529: "Overloaded"}


class LoopbackServer(ThreadingHTTPServer):
    """A threading HTTP server on 127.0.0.1 that can be stopped at once, connections included."""

    daemon_threads = True

    def __init__(self, answer: Callable[[RequestHandler], None]) -> None:
        self.answer = answer
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        self._wake_reader, self._wake_writer = socket.socketpair()
        super().__init__(("127.0.0.1", 0), RequestHandler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind looks up the host's FQDN, which can take seconds; skip it.
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name = str(host)
        self.server_port = int(port)

    @property
    def port(self) -> int:
        return self.server_port

    def serve_until_woken(self) -> None:
        """Accept connections until `wake()`; each is served on its own daemon thread."""
        with selectors.DefaultSelector() as selector:
            selector.register(self.socket, selectors.EVENT_READ, "accept")
            selector.register(self._wake_reader, selectors.EVENT_READ, "wake")
            while True:
                for key, _ in selector.select():
                    if key.data == "wake":
                        return
                    self.handle_request()  # the listener is readable: does not block

    def wake(self) -> None:
        """Make `serve_until_woken` return."""
        self._wake_writer.send(b"x")

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._connections_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """End every open connection, so idle keep-alive threads return."""
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def server_close(self) -> None:
        super().server_close()  # also joins the connection threads
        self._wake_reader.close()
        self._wake_writer.close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that went away mid-answer (an interrupt, a cut test) is not a server error.
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


@contextlib.contextmanager
def refused_port() -> Generator[int]:
    """A port on 127.0.0.1 where every connection is refused while the block runs: bound, not
    listening. A port bound and closed again (to name one nobody listens on) is free for any
    process meanwhile: another test's server may take it, or a client be given it as its own
    end (a TCP connection to itself), and the endpoint answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]
