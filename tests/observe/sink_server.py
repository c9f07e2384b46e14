"""A real HTTP server on 127.0.0.1 for the webhook tests: it records each request and answers
with the statuses it is given; `hold()` makes it keep every request waiting until `release()`."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    client_port: int = 0
    """Which connection it came on."""


class SinkServer:
    def __init__(self, *, keep_alive: bool = False) -> None:
        """`keep_alive`: HTTP/1.1, connections kept open between requests (a collector's
        usual way); else HTTP/1.0, each answer closing its connection."""
        self.received: list[Received] = []
        self.statuses: list[int] = []
        """Answered in turn; 200 once they run out."""
        self.arrived = threading.Condition()
        self._gate = threading.Event()
        self._gate.set()
        self.answered = 0
        self.delay_s = 0.0
        """How long each answer waits (a slow endpoint)."""
        self.endless = False
        """Answer 200 with a body that never ends (chunks until the client hangs up)."""
        self._stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                with server.arrived:
                    server.received.append(
                        Received(
                            self.path,
                            {k.lower(): v for k, v in self.headers.items()},
                            body,
                            self.client_address[1],
                        )
                    )
                    status = server.statuses.pop(0) if server.statuses else 200
                    server.arrived.notify_all()
                server._gate.wait()
                if server.delay_s:
                    server._stopping.wait(server.delay_s)
                if server.endless:
                    self._answer_forever()
                    return
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:  # the client gave up waiting
                    return
                with server.arrived:
                    server.answered += 1

            def _answer_forever(self) -> None:
                chunk = b"%x\r\n%s\r\n" % (65536, b"x" * 65536)
                try:
                    self.send_response(200)
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    while not server._stopping.is_set():
                        self.wfile.write(chunk)
                except OSError:  # the client hung up: what it should do
                    self.close_connection = True

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._http.server_address[1]}/hook"
        self._thread = threading.Thread(target=self._http.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    def hold(self) -> None:
        self._gate.clear()

    def release(self) -> None:
        self._gate.set()

    def in_order(self) -> list[Received]:
        """What was received, by the `seq` of its JSON body (posted side by side, the
        requests may come in any order)."""
        return sorted(
            self.received, key=lambda r: (json.loads(r.body)["stream"], json.loads(r.body)["seq"])
        )

    def wait_for(self, count: int, timeout: float = 30.0) -> None:
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.received) >= count, timeout)

    def stop(self) -> None:
        self._stopping.set()
        self.release()
        self._http.shutdown()
        self._http.server_close()
        self._thread.join()
