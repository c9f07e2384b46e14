"""The first contact with a Redis store, bounded and said in words a person can act on.

Before a store keeps its client, one probe (`PING`, no retries, the connect timeout for the
read as well) checks that a Redis server answers at the URL. Without it, an address nobody
answers cost redis-py's retries (four connect timeouts and their backoff), a silent listener
the read timeout four times over, and whatever answers in another protocol (an HTTP proxy's
`400 Bad Request`) a traceback of `InvalidResponse`, which is no connection error."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.store.redis_tls import tls_failure, tls_options
from tether.store.store_errors import StoreUnavailable
from tether.store.store_url import cannot_use

if TYPE_CHECKING:
    from redis.exceptions import RedisError

CONNECT_TIMEOUT_S = 5.0
"""How long a store waits for a Redis server to accept a connection, and to answer the probe."""


def failures() -> tuple[type[RedisError], ...]:
    """The errors that mean the store cannot be used as it is now (unreachable, timed out,
    answered in another protocol): a store's own calls catch these."""
    import redis
    from redis.exceptions import InvalidResponse

    return (
        redis.ConnectionError,
        redis.TimeoutError,
        InvalidResponse,
        tls_failure(),
    )


def probe(url: str, kind: str) -> None:
    """`StoreUnavailable` (`cannot_use`, with what was waited for or what answered) unless a
    Redis server answers `PING` at `url` within `CONNECT_TIMEOUT_S`, at the first try."""
    import redis
    from redis.backoff import NoBackoff
    from redis.exceptions import InvalidResponse
    from redis.retry import Retry

    try:
        client = redis.Redis.from_url(
            url,
            socket_connect_timeout=CONNECT_TIMEOUT_S,
            socket_timeout=CONNECT_TIMEOUT_S,
            retry=Retry(NoBackoff(), 0),
            **tls_options(url),
        )
    except ValueError as e:
        raise StoreUnavailable(cannot_use(kind, url, e)) from None
    try:
        client.ping()
    except InvalidResponse as e:
        raise StoreUnavailable(
            cannot_use(kind, url, _Said(f"what answers there is not a Redis server ({e})"))
        ) from None
    except redis.TimeoutError as e:
        raise StoreUnavailable(
            cannot_use(kind, url, _Said(f"no answer within {CONNECT_TIMEOUT_S:g} s ({e})"))
        ) from None
    except redis.RedisError as e:
        raise StoreUnavailable(cannot_use(kind, url, e)) from None
    finally:
        client.close()


class _Said(Exception):
    """An error told in other words than redis-py's."""
