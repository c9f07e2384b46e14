"""Redis's wire protocol (RESP2) spoken directly over one TCP connection, for a command that
makes a handful of calls and exits (`tether team send`'s plain message, `mailbox_post`).

Why not redis-py there: importing it costs more than the whole send does. redis-py 8 imports
`redis.asyncio` (asyncio), its OpenTelemetry metrics and parsers with its package, some 0.1 s
on a quiet machine and 0.6 s on a busy one, against a few milliseconds for the calls
themselves. Only plain `redis://` URLs are spoken here (user, password, database); TLS, unix
sockets and URL options are left to redis-py."""

from __future__ import annotations

import socket
from typing import TypeAlias
from urllib.parse import unquote, urlsplit


class RespError(Exception):
    """An error reply (`-ERR ...`), as a value in a transaction's results or raised."""


Reply: TypeAlias = "str | int | list[Reply] | RespError | None"


class NotRedis(Exception):
    """What answered is not speaking RESP."""


def plain_url(url: str) -> bool:
    """Whether `url` is one this module speaks: redis://, no options."""
    parts = urlsplit(url)
    return parts.scheme == "redis" and not parts.query


class RespConnection:
    """One connection to the server at a plain `redis://` URL, authenticated and on its
    database. `OSError` (`TimeoutError` among them) when it cannot be reached or stops
    answering; `RespError` when the server refuses the URL's password or database."""

    def __init__(self, url: str, *, timeout_s: float) -> None:
        parts = urlsplit(url)
        host, port = parts.hostname or "localhost", parts.port or 6379
        self._sock = socket.create_connection((host, port), timeout=timeout_s)
        self._file = self._sock.makefile("rb")
        try:
            if parts.password is not None:
                self._auth(parts.username, parts.password)
            db = parts.path.removeprefix("/")
            if db and db != "0":
                self.call("SELECT", db)
        except BaseException:
            self.close()
            raise

    def _auth(self, username: str | None, password: str) -> None:
        user = [unquote(username)] if username else []
        try:
            self.call("AUTH", *user, unquote(password))
        except RespError as e:
            # A password given to a server that has none: redis-py goes on, and so does this.
            if "without any password configured" not in str(e):
                raise

    def call(self, *args: str) -> Reply:
        """One command's reply; an error reply raised."""
        (reply,) = self.calls([args])
        if isinstance(reply, RespError):
            raise reply
        return reply

    def calls(self, commands: list[tuple[str, ...]]) -> list[Reply]:
        """Several commands sent at once (one round trip), their replies in order, error
        replies as values."""
        self._sock.sendall(b"".join(_encode(command) for command in commands))
        return [self._read() for _ in commands]

    def _read(self) -> Reply:
        line = self._file.readline()
        if not line.endswith(b"\r\n"):
            if not line:
                raise ConnectionError("the server closed the connection")
            raise NotRedis(f"not a Redis reply: {line[:40]!r}")
        kind, body = line[:1], line[1:-2].decode("utf-8", "surrogateescape")
        if kind == b"+":
            return body
        if kind == b"-":
            return RespError(body)
        if kind == b":":
            return int(body)
        if kind == b"$":
            size = int(body)
            if size < 0:
                return None
            data = self._file.read(size + 2)
            return data[:-2].decode("utf-8", "surrogateescape")
        if kind == b"*":
            count = int(body)
            return None if count < 0 else [self._read() for _ in range(count)]
        raise NotRedis(f"not a Redis reply: {line[:40]!r}")

    def close(self) -> None:
        self._file.close()
        self._sock.close()


def _encode(args: tuple[str, ...]) -> bytes:
    parts = [f"*{len(args)}\r\n".encode()]
    for arg in args:
        data = arg.encode("utf-8", "surrogateescape")
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)
