"""`refused_port`: a port that refuses connections for the whole test. A port bound and closed
again (how tests named one nobody listens on) could be taken meanwhile by another process's
server, and the "unreachable" endpoint answered."""

from __future__ import annotations

import errno
import socket

import pytest


def test_a_connection_is_refused_and_no_one_else_can_take_the_port(refused_port: int) -> None:
    with socket.socket() as other, pytest.raises(OSError, match="in use") as taken:
        other.bind(("127.0.0.1", refused_port))
    assert taken.value.errno == errno.EADDRINUSE
    with socket.socket() as client, pytest.raises(ConnectionRefusedError):
        client.connect(("127.0.0.1", refused_port))
