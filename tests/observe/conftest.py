from __future__ import annotations

from collections.abc import Iterator

import pytest

from .sink_server import SinkServer


@pytest.fixture
def sink_server() -> Iterator[SinkServer]:
    server = SinkServer()
    try:
        yield server
    finally:
        server.stop()
