"""A request the client cuts before its body has arrived reaches no one: the fake server
neither answers nor judges it, as the real API never sees it (a client that cancels a call
between writing the headers and the body, as a worker interrupted by a lost lease does)."""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

import pytest

from tether.testing import FakeModelServer, text

BODY = json.dumps(
    {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hello"}]}
).encode()


def _send_then_close(server: FakeModelServer, head: bytes, body: bytes) -> bytes:
    """Send `head` and `body`, close the sending side, and read what the server says until
    it closes its end."""
    address = urlsplit(server.url)
    with socket.create_connection((address.hostname or "127.0.0.1", address.port or 80)) as sock:
        sock.sendall(head + body)
        sock.shutdown(socket.SHUT_WR)
        said = b""
        while chunk := sock.recv(65536):
            said += chunk
    return said


def _head(server: FakeModelServer, framing: str) -> bytes:
    host = urlsplit(server.url).netloc
    return (
        f"POST /v1/messages HTTP/1.1\r\nHost: {host}\r\nx-api-key: k\r\n"
        f"anthropic-version: 2023-06-01\r\ncontent-type: application/json\r\n{framing}\r\n\r\n"
    ).encode()


@pytest.mark.parametrize(
    ("framing", "sent"),
    [
        (f"Content-Length: {len(BODY)}", b""),  # the headers only
        (f"Content-Length: {len(BODY)}", BODY[:20]),  # part of the body
        ("Transfer-Encoding: chunked", b"%x\r\n%s" % (len(BODY), BODY[:20])),  # a chunk cut
        ("Transfer-Encoding: chunked", b"%x\r\n%s\r\n" % (len(BODY), BODY)),  # no last chunk
    ],
    ids=["headers-only", "part-of-the-body", "chunk-cut", "no-last-chunk"],
)
def test_a_request_cut_before_its_body_ends_is_neither_answered_nor_refused(
    fake_model: FakeModelServer, framing: str, sent: bytes
) -> None:
    fake_model.script(text("answered"))
    said = _send_then_close(fake_model, _head(fake_model, framing), sent)
    assert (said, fake_model.requests, fake_model.rejections) == (b"", [], [])
    # The script's turn is still there for the next whole request.
    whole = _send_then_close(fake_model, _head(fake_model, f"Content-Length: {len(BODY)}"), BODY)
    assert whole.startswith(b"HTTP/1.1 200 ")
    assert b'"text": "answered"' in whole or b'"text":"answered"' in whole
    assert (len(fake_model.requests), fake_model.rejections) == (1, [])
