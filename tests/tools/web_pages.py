"""A web site on 127.0.0.1 for WebFetch's tests: pages by path, each a status, headers and a
body, served by the standard library's threading server."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Page:
    body: bytes = b""
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict[str, str])


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        pages: dict[str, Page] = self.server.pages  # type: ignore[attr-defined]
        self.server.requested.append(self.path)  # type: ignore[attr-defined]
        page = pages.get(self.path, Page(b"not here", 404, {"content-type": "text/plain"}))
        self.send_response(page.status)
        for name, value in page.headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(page.body)))
        self.end_headers()
        self.wfile.write(page.body)

    def log_message(self, format: str, *args: Any) -> None:
        """Silent."""


@dataclass
class Site:
    url: str
    pages: dict[str, Page]
    requested: list[str]


@contextmanager
def web_site(pages: Mapping[str, Page]) -> Iterator[Site]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.pages = dict(pages)  # type: ignore[attr-defined]
    server.requested = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(f"http://127.0.0.1:{server.server_address[1]}", server.pages, server.requested)  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
