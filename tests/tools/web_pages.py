"""A web site on 127.0.0.1 for WebFetch's tests: pages by path, each a status, headers and a
body, served over TLS by the standard library's threading server (WebFetch fetches https only),
with a certificate made for the test run and trusted through SSL_CERT_FILE while it serves."""

from __future__ import annotations

import atexit
import os
import shutil
import ssl
import subprocess
import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
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


@cache
def certificate() -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost, and its key, made once a run."""
    folder = Path(tempfile.mkdtemp(prefix="tether-web-pages-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    cert, key = folder / "cert.pem", folder / "key.pem"
    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2")
    names = ("-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost")
    subprocess.run(
        ["openssl", "req", "-x509", *ec, *names, "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    return cert, key


@contextmanager
def web_site(pages: Mapping[str, Page], *, tls: bool = True) -> Iterator[Site]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    cert, key = certificate()
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    server.pages = dict(pages)  # type: ignore[attr-defined]
    server.requested = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    trusted = os.environ.get("SSL_CERT_FILE")
    os.environ["SSL_CERT_FILE"] = str(cert)  # for this process and the tether it starts
    scheme = "https" if tls else "http"
    try:
        yield Site(
            f"{scheme}://127.0.0.1:{server.server_address[1]}", server.pages, server.requested
        )  # type: ignore[attr-defined]
    finally:
        if trusted is None:
            os.environ.pop("SSL_CERT_FILE", None)
        else:
            os.environ["SSL_CERT_FILE"] = trusted
        server.shutdown()
        server.server_close()
        thread.join()
