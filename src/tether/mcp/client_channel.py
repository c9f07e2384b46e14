"""An MCP server that lives in the client driving tether (an SDK's in-process server), reached
by handing each JSON-RPC message to the front end, which carries it over its own channel (the
control protocol's `mcp_message` requests) and hands the answer back.

To the MCP SDK's `Client` this is one more transport: a pair of streams. So listing, calls,
timeouts, names and the permission rules are those of every other server.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp.types
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectSendStream
from mcp.client import Transport
from mcp.client._transport import TransportStreams
from mcp.shared.message import SessionMessage

from tether.mcp.servers import ChannelClosed, JsonRpcExchange


def channel_transport(name: str, exchange: JsonRpcExchange) -> Transport:
    """The transport to the client's server `name`."""
    return _channel(name, exchange)


@asynccontextmanager
async def _channel(name: str, exchange: JsonRpcExchange) -> AsyncGenerator[TransportStreams]:
    to_server_send, to_server_receive = anyio.create_memory_object_stream[SessionMessage](64)
    from_server_send, from_server_receive = anyio.create_memory_object_stream[
        SessionMessage | Exception
    ](64)

    async def deliver(message: SessionMessage) -> None:
        raw: dict[str, Any] = message.message.model_dump(
            by_alias=True, mode="json", exclude_none=True
        )
        try:
            answer = await exchange(name, raw)
        except ChannelClosed as e:
            answer = _error_for(raw, str(e))
        if answer is not None and "id" in answer and answer.get("id") is not None:
            await _hand_back(from_server_send, answer)

    async def pump(group: TaskGroup) -> None:
        # Each message in a task of its own: a slow tool call must not hold up the others.
        async with to_server_receive:
            async for message in to_server_receive:
                group.start_soon(deliver, message)

    async with anyio.create_task_group() as group, from_server_send:
        group.start_soon(pump, group)
        try:
            yield from_server_receive, to_server_send
        finally:
            await to_server_send.aclose()
            group.cancel_scope.cancel()


async def _hand_back(
    stream: MemoryObjectSendStream[SessionMessage | Exception], answer: dict[str, Any]
) -> None:
    try:
        parsed = mcp.types.jsonrpc_message_adapter.validate_python(answer, by_name=False)
    except ValueError as e:
        await stream.send(ChannelClosed(f"the client answered with something not JSON-RPC: {e}"))
        return
    await stream.send(SessionMessage(parsed))


def _error_for(request: dict[str, Any], why: str) -> dict[str, Any] | None:
    """A JSON-RPC error answering `request` (nothing for a notification)."""
    if "id" not in request:
        return None
    return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32603, "message": why}}
