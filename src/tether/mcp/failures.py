"""What went wrong with an MCP server, in a few words. The SDK reports failures as exception
groups from its task groups, JSON-RPC errors, validation errors and transport errors; a person
reading `tether mcp list` wants one line."""

from __future__ import annotations

import anyio
from mcp.shared.exceptions import MCPError
from mcp.types import CONNECTION_CLOSED
from pydantic import ValidationError


def describe(exc: BaseException) -> str:
    """The cause, in one line."""
    leaf = root_cause(exc)
    match leaf:
        case MCPError() if leaf.code == CONNECTION_CLOSED:
            return "the server closed the connection"
        case MCPError():
            return f"the server answered with an error: {leaf.message} (code {leaf.code})"
        case ValidationError():
            first = leaf.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "the result"
            more = f" (and {leaf.error_count() - 1} more)" if leaf.error_count() > 1 else ""
            return f"the server's answer is malformed: {where}: {first['msg']}{more}"
        case TimeoutError():
            return "no answer in time"
        case anyio.ClosedResourceError() | anyio.BrokenResourceError() | anyio.EndOfStream():
            return "the connection is closed"
        case _:
            lines = str(leaf).strip().splitlines()
            return f"{type(leaf).__name__}: {lines[0]}" if lines else type(leaf).__name__


def from_the_server(exc: BaseException) -> bool:
    """Whether the server itself answered (an error or nonsense), as opposed to the transport
    failing to reach it."""
    return isinstance(root_cause(exc), MCPError | ValidationError | TimeoutError)


def connection_lost(exc: BaseException) -> bool:
    """Whether the failure means the connection is gone (the server exited or hung up), so
    that a new connection may succeed where this one cannot."""
    leaf = root_cause(exc)
    if isinstance(leaf, MCPError):
        return leaf.code == CONNECTION_CLOSED
    return isinstance(
        leaf, anyio.ClosedResourceError | anyio.BrokenResourceError | anyio.EndOfStream
    )


def root_cause(exc: BaseException) -> BaseException:
    """The first real exception inside nested exception groups (task groups wrap them)."""
    while isinstance(exc, BaseExceptionGroup):
        inner = exc.exceptions
        exc = next(
            (e for e in inner if not isinstance(e, anyio.get_cancelled_exc_class())),
            inner[0],
        )
    return exc
