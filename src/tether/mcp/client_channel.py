"""An MCP server that lives in the client driving tether (an SDK's in-process server), reached
by handing each JSON-RPC message to the front end, which carries it over its own channel (the
control protocol's `mcp_message` requests) and hands the answer back.

tether speaks this JSON-RPC itself, with a small client of its own, rather than through the MCP
SDK: the SDK takes most of a second to import, which every query of an Agent SDK program with
an in-process server would pay at start. The client does what the SDK's does on such a channel:
it asks `server/discover` first and stamps each request with the protocol version, its
identity and capabilities (the newer protocol), or falls back to the `initialize` handshake
for a server that does not answer it; it pages through listings, checks every answer's shape
(`wire`), checks a tool's structured result against the output schema it declared, and tells
the server when a call it was asked is abandoned (`notifications/cancelled`). Listing, calls,
timeouts, names and permission rules are then those of every other server.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from tether import __version__
from tether.mcp.failures import describe
from tether.mcp.offerings import (
    Listing,
    PromptSpec,
    ToolSpec,
    check_tools,
    prompt_spec,
    raw_pages,
)
from tether.mcp.servers import ChannelClosed, JsonRpcExchange
from tether.mcp.wire import (
    INTERNAL_ERROR,
    Malformed,
    RpcError,
    call_result,
    items,
    obj,
    prompt_result,
    read_result,
    rpc_error,
)

MODERN_VERSION = "2026-07-28"
"""The protocol version asked for with `server/discover` (the newest the MCP SDK speaks)."""
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Versions the `initialize` handshake may settle on; the last is asked for."""
UNSUPPORTED_PROTOCOL_VERSION = -32022
CLIENT_INFO = {"name": "tether", "version": __version__}
_META = "io.modelcontextprotocol/"


class ChannelSession:
    """A session with the client's server `name`. `await open()` once, then use it."""

    def __init__(self, name: str, exchange: JsonRpcExchange, roots: tuple[Path, ...] = ()) -> None:
        self._name = name
        self._exchange = exchange
        self._ids = itertools.count(1)
        self._client_capabilities: dict[str, Any] = (
            {"roots": {"listChanged": True}} if roots else {}
        )
        self._stamp: dict[str, Any] | None = None
        """The `_meta` each request carries once the newer protocol is agreed on."""
        self._capabilities: dict[str, Any] = {}
        self._server_info: dict[str, Any] | None = None
        self._output_schemas: dict[str, dict[str, Any]] = {}
        self._cancelling: set[asyncio.Task[None]] = set()

    @property
    def capabilities(self) -> Mapping[str, Any]:
        return self._capabilities

    async def open(self) -> ChannelSession:
        """The handshake: `server/discover`, or `initialize` when the server does not answer
        it with a version in common. Raises what the server answered, when it refuses both."""
        meta = {
            f"{_META}protocolVersion": MODERN_VERSION,
            f"{_META}clientInfo": CLIENT_INFO,
            f"{_META}clientCapabilities": self._client_capabilities,
        }
        try:
            found = await self._request("server/discover", {"_meta": meta})
        except (RpcError, Malformed):
            found = None  # an older server: the handshake instead
        if found is not None:
            versions = found.get("supportedVersions")
            if isinstance(versions, list) and MODERN_VERSION in versions:
                self._stamp = meta
                self._capabilities = obj(found.get("capabilities") or {}, "capabilities")
                return self
        params = {
            "protocolVersion": HANDSHAKE_VERSIONS[-1],
            "capabilities": self._client_capabilities,
            "clientInfo": CLIENT_INFO,
        }
        agreed = await self._request("initialize", params)
        version = agreed.get("protocolVersion")
        if version not in HANDSHAKE_VERSIONS:
            raise RuntimeError(f"Unsupported protocol version from the server: {version}")
        self._capabilities = obj(agreed.get("capabilities"), "capabilities")
        info = agreed.get("serverInfo")
        self._server_info = cast(dict[str, Any], info) if isinstance(info, dict) else None
        await self._notify("notifications/initialized", {})
        return self

    async def offerings(self, server: str) -> Listing:
        problems: list[str] = []
        tools: list[ToolSpec] = []
        if self._capabilities.get("tools") is not None:
            listed = await raw_pages(lambda cursor: self._page("tools/list", cursor), "tools")
            # As through the SDK: an entry that is not an object is no tool at all.
            raws = [cast(dict[str, Any], raw) for raw in listed if isinstance(raw, dict)]
            tools, kept, problems = check_tools(server, cast(list[Mapping[str, Any]], raws))
            for index in kept:
                schema = raws[index].get("outputSchema")
                if isinstance(schema, dict):
                    self._output_schemas[raws[index]["name"]] = cast(dict[str, Any], schema)
        prompts: list[PromptSpec] = []
        if self._capabilities.get("prompts") is not None:
            try:
                listed = await raw_pages(
                    lambda cursor: self._page("prompts/list", cursor), "prompts"
                )
                prompts = [p for raw in items(listed, "prompts") if (p := prompt_spec(raw))]
            except (RpcError, Malformed) as exc:  # prompts are extras: a problem, not a failure
                problems.append(
                    f'MCP server "{server}": its prompts could not be listed: {describe(exc)}'
                )
        return Listing(tuple(tools), tuple(prompts), tuple(problems), self._server_info)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = call_result(
            await self._request("tools/call", {"name": name, "arguments": arguments})
        )
        schema = self._output_schemas.get(name)
        if schema is not None and result.get("isError") is not True:
            _check_structured(name, schema, result)
        return result

    async def read_resource(self, uri: str) -> list[dict[str, Any]]:
        return read_result(await self._request("resources/read", {"uri": uri}))

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> dict[str, Any]:
        answer = await self._request("prompts/get", {"name": name, "arguments": arguments})
        return prompt_result(answer)

    async def roots_changed(self) -> None:
        await self._notify("notifications/roots/list_changed", {})

    async def list_resources(self) -> list[dict[str, Any]]:
        listed = await raw_pages(lambda cursor: self._page("resources/list", cursor), "resources")
        return items(listed, "resources")

    async def _page(self, method: str, cursor: str | None) -> dict[str, Any]:
        return await self._request(method, {"cursor": cursor} if cursor is not None else {})

    async def _request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The result of a request; raises `RpcError` for an error answer (or a channel that
        could not carry it), `Malformed` for an answer that is not a JSON-RPC response."""
        request_id = next(self._ids)
        message = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": method,
            "params": self._stamped(params),
        }
        try:
            answer = await self._exchange(self._name, message)
        except ChannelClosed as exc:
            raise RpcError(INTERNAL_ERROR, str(exc)) from None
        except asyncio.CancelledError:
            self._tell_cancelled(request_id)
            raise
        if answer is None:
            raise Malformed("", "the client answered a request with no response")
        if answer.get("error") is not None:
            raise rpc_error(answer["error"])
        if "result" not in answer:
            raise Malformed("", "a JSON-RPC response has a result or an error")
        return obj(answer["result"], "")

    async def _notify(self, method: str, params: dict[str, Any]) -> None:
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        with contextlib.suppress(ChannelClosed):  # a notification has no answer to fail
            await self._exchange(self._name, message)

    def _tell_cancelled(self, request_id: int) -> None:
        """Tell the server a request was abandoned, without waiting (the caller is leaving)."""
        params = {"requestId": request_id, "reason": "the request was cancelled"}
        task = asyncio.get_running_loop().create_task(
            self._notify("notifications/cancelled", params)
        )
        self._cancelling.add(task)
        task.add_done_callback(self._cancelling.discard)

    def _stamped(self, params: dict[str, Any]) -> dict[str, Any]:
        if self._stamp is None:
            return params
        meta = params.get("_meta")
        return {**params, "_meta": {**self._stamp, **(meta if isinstance(meta, dict) else {})}}


def _check_structured(name: str, schema: dict[str, Any], result: Mapping[str, Any]) -> None:
    """A tool that declared an output schema must return structured content that fits it (as
    the MCP SDK's client requires). The validator is loaded only for such a tool."""
    if "structuredContent" not in result:
        raise RuntimeError(
            f"Tool {name} has an output schema but did not return structured content"
        )
    from jsonschema import exceptions as jsonschema_exceptions
    from jsonschema.validators import validator_for

    validator_class: Any = validator_for(schema)
    try:
        validator_class.check_schema(schema)
    except jsonschema_exceptions.SchemaError as exc:
        raise RuntimeError(f"Invalid schema for tool {name}: {exc.message}") from exc
    errors = validator_class(schema).iter_errors(result.get("structuredContent"))
    error: Any = jsonschema_exceptions.best_match(errors)
    if error is not None:
        raise RuntimeError(
            f"Invalid structured content returned by tool {name}: {error}"
        ) from error
