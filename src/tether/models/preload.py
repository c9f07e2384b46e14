"""The HTTP stack loaded ahead, on a thread: both wires need it for the first request.

Importing httpx2 and httpcore2 and reading the system's trust store for TLS take some 50 ms
on a quiet machine (the trust store is C code that lets other threads run); a headless run
starts this before its own imports, so that it is done when the first request goes out.
`tls_context` is then the context every model client verifies servers with, the one httpx2
would otherwise build for each client itself (the same function, the same environment).

Reading the trust store is the larger part (some 240 M instructions, an eighth of a headless
start): a client that can never speak TLS (a plain `http://` endpoint, a local model server or
gateway, with no proxy set) gets `no_trust_context()` instead, which reads nothing and, should
TLS ever be asked of it, trusts no certificate. The preload reads the store only when the
environment does not say the endpoint is plain HTTP (`tls_likely`); the model client decides
from its real URL (`needs_tls`), so a wrong guess costs time, never a check.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING

from tether.models.http_version import read_http_version_quickly

if TYPE_CHECKING:
    import ssl

_lock = threading.Lock()
_context: ssl.SSLContext | None = None

# What the first request needs besides httpx2 itself: the async backend httpcore2 loads on
# its first connection.
_ALSO_IMPORTED = ("anyio._backends._asyncio",)

_PROXY_VARIABLES = ("https_proxy", "http_proxy", "all_proxy")
"""What httpx2 reads proxies from (any case): a proxy may be reached over TLS."""


def preload_http_soon(*, tls: bool = True) -> None:
    """Import the HTTP stack and, with `tls`, build the TLS context on a thread of its own. Not
    a daemon: a process that exits meanwhile (a configuration error) waits for it, as the
    interpreter cannot be finalized under a thread that is importing or loading the trust
    store (it crashed so, a run in ten). httpx2 then reads its version without
    `importlib.metadata` (`tether.models.http_version`)."""
    read_http_version_quickly()
    threading.Thread(target=_preload, args=(tls,), name="http-preload").start()


def needs_tls(url: str, env: Mapping[str, str]) -> bool:
    """Whether a client POSTing to `url` may have to speak TLS: an `https` URL, or any proxy
    set in `env` (redirects are never followed)."""
    return not url.lower().startswith("http://") or _proxy_set(env)


def tls_likely(env: Mapping[str, str]) -> bool:
    """A guess, before the model is known, of whether its endpoint speaks TLS: no, when every
    `*_BASE_URL` variable set names a plain `http://` URL (and no proxy is set); yes otherwise,
    as for the hosted APIs' defaults."""
    urls = [v for k, v in env.items() if k.upper().endswith("_BASE_URL") and v]
    return not urls or any(needs_tls(url, env) for url in urls)


def no_trust_context() -> ssl.SSLContext:
    """A context for a client that never speaks TLS: built without reading the trust store,
    verifying as the default one does, so that any TLS asked of it fails rather than trusts."""
    import ssl

    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def tls_context() -> ssl.SSLContext:
    """The TLS context for model clients: httpx2's default for this environment, built once
    per process (by the preload when it ran, which is waited for if still under way)."""
    global _context
    with _lock:
        if _context is None:
            import httpx2

            _context = httpx2.create_ssl_context(trust_env=True)
        return _context


def _proxy_set(env: Mapping[str, str]) -> bool:
    return any(k.lower() in _PROXY_VARIABLES and v for k, v in env.items())


def _preload(tls: bool) -> None:
    if tls:
        tls_context()
    else:
        importlib.import_module("httpx2")  # imported ahead, as with the context
    for name in _ALSO_IMPORTED:
        # A later version laid out otherwise: it is loaded when used, as without this.
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
