"""`rediss://` (Redis over TLS) with a handshake bounded by the connect timeout, and said as
such when it fails. redis-py runs the handshake under the socket's read timeout (30 s and
more here), and retries it: a `rediss://` URL pointing at a server without TLS, which waits
for a line the handshake never sends, hung for minutes before a bare "Timeout" came. Here the
handshake gets the connect timeout, once, and its failure names TLS and what to check."""

from __future__ import annotations

import socket
import ssl
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from redis.exceptions import RedisError


def tls_options(url: str) -> dict[str, Any]:
    """Extra `Redis.from_url` options for `url`: the bounded TLS connection for `rediss://`,
    none for anything else."""
    if not url.lower().startswith("rediss://"):
        return {}
    return {"connection_class": _bounded_tls_connection()}


def tls_failure() -> type[RedisError]:
    """The error a failed handshake raises: a `RedisError` that redis-py does not retry
    (it is no connection error), which the stores catch with their connection errors."""
    return _classes()[1]


_made: list[Any] = []


def _bounded_tls_connection() -> type[Any]:
    return _classes()[0]


def _classes() -> tuple[type[Any], type[RedisError]]:
    """Made on first use: `redis` is imported only by the Redis stores."""
    if _made:
        return _made[0], _made[1]
    from redis.connection import SSLConnection
    from redis.exceptions import RedisError

    class TlsHandshakeFailed(RedisError):
        pass

    class BoundedTlsConnection(SSLConnection):
        def _wrap_socket_with_ssl(self, sock: socket.socket) -> Any:
            limit = self.socket_connect_timeout
            sock.settimeout(limit)
            try:
                wrapped = super()._wrap_socket_with_ssl(sock)
            except (OSError, ssl.SSLError) as e:
                raise TlsHandshakeFailed(_said(self.host, self.port, limit, e)) from None
            wrapped.settimeout(self.socket_timeout)
            return wrapped

    _made.extend((BoundedTlsConnection, TlsHandshakeFailed))
    return BoundedTlsConnection, TlsHandshakeFailed


def _said(host: str, port: int, limit: float | None, error: Exception) -> str:
    if isinstance(error, TimeoutError | socket.timeout):
        why = f"no answer within {limit:g} s" if limit else "no answer"
    else:
        why = str(error) or type(error).__name__
    return (
        f"the TLS handshake with {host}:{port} failed ({why}): a Redis server without TLS "
        "answers rediss:// so (use redis:// for it), or its certificate is not trusted here"
    )
