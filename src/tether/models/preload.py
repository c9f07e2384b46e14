"""The HTTP stack loaded ahead, on a thread: both wires need it for the first request.

Importing httpx2 and httpcore2 and reading the system's trust store for TLS take some 50 ms
on a quiet machine (the trust store is C code that lets other threads run); a headless run
starts this before its own imports, so that it is done when the first request goes out.
`tls_context` is then the context every model client verifies servers with, the one httpx2
would otherwise build for each client itself (the same function, the same environment).
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import ssl

_lock = threading.Lock()
_context: ssl.SSLContext | None = None

# What the first request needs besides httpx2 itself: the async backend httpcore2 loads on
# its first connection.
_ALSO_IMPORTED = ("anyio._backends._asyncio",)


def preload_http_soon() -> None:
    """Import the HTTP stack and build the TLS context on a thread of its own. Not a daemon: a
    process that exits meanwhile (a configuration error) waits for it, as the interpreter
    cannot be finalized under a thread that is importing or loading the trust store (it
    crashed so, a run in ten)."""
    threading.Thread(target=_preload, name="http-preload").start()


def tls_context() -> ssl.SSLContext:
    """The TLS context for model clients: httpx2's default for this environment, built once
    per process (by the preload when it ran, which is waited for if still under way)."""
    global _context
    with _lock:
        if _context is None:
            import httpx2

            _context = httpx2.create_ssl_context(trust_env=True)
        return _context


def _preload() -> None:
    tls_context()
    for name in _ALSO_IMPORTED:
        # A later version laid out otherwise: it is loaded when used, as without this.
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
