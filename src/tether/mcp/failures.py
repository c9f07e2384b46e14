"""What went wrong with an MCP server, in a few words. The SDK reports failures as exception
groups from its task groups, JSON-RPC errors, validation errors and transport errors; tether's
own client (`client_channel`) as `wire.RpcError` and `wire.Malformed`; a person reading
`tether mcp list` wants one line.

The SDK's exception types are looked at only once the SDK is loaded: before that, none of its
exceptions can exist (and a session with only the client's own servers never loads it)."""

from __future__ import annotations

import sys

import anyio

from tether.mcp.wire import CONNECTION_CLOSED, Malformed, RpcError


def describe(exc: BaseException) -> str:
    """The cause, in one line."""
    leaf = root_cause(exc)
    error = _rpc_error(leaf)
    if error is not None:
        code, message = error
        if code == CONNECTION_CLOSED:
            return "the server closed the connection"
        return f"the server answered with an error: {message} (code {code})"
    malformed = _malformed(leaf)
    if malformed is not None:
        return f"the server's answer is malformed: {malformed}"
    match leaf:
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
    leaf = root_cause(exc)
    return (
        _rpc_error(leaf) is not None
        or _malformed(leaf) is not None
        or isinstance(leaf, TimeoutError)
    )


def connection_lost(exc: BaseException) -> bool:
    """Whether the failure means the connection is gone (the server exited or hung up), so
    that a new connection may succeed where this one cannot."""
    leaf = root_cause(exc)
    error = _rpc_error(leaf)
    if error is not None:
        return error[0] == CONNECTION_CLOSED
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


def _rpc_error(leaf: BaseException) -> tuple[int, str] | None:
    """A JSON-RPC error's code and message, from either client."""
    if isinstance(leaf, RpcError):
        return leaf.code, leaf.message
    if "mcp.shared.exceptions" in sys.modules:  # only the SDK raises its own
        from mcp.shared.exceptions import MCPError

        if isinstance(leaf, MCPError):
            return leaf.code, leaf.message
    return None


def _malformed(leaf: BaseException) -> str | None:
    """Where an answer of the wrong shape went wrong, and how."""
    if isinstance(leaf, Malformed):
        return str(leaf)
    if "pydantic" in sys.modules:  # the SDK's types check answers with pydantic
        from pydantic import ValidationError

        if isinstance(leaf, ValidationError):
            first = leaf.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "the result"
            more = f" (and {leaf.error_count() - 1} more)" if leaf.error_count() > 1 else ""
            return f"{where}: {first['msg']}{more}"
    return None
