"""A server reached through the MCP SDK (stdio, streamable HTTP, SSE), as an `McpSession`: the
SDK's typed answers handed on as the wire's JSON. Imported only by a connection to such a
server: the SDK takes most of a second to import."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from contextlib import AsyncExitStack
from typing import Any

from mcp.client import Client
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.types import Resource

from tether.mcp.client_side import ClientSide
from tether.mcp.diagnostics import Diagnostics
from tether.mcp.listing import every_page, list_offerings
from tether.mcp.offerings import Listing
from tether.mcp.servers import ServerConfig
from tether.mcp.transports import enter_client


async def enter_sdk_session(
    config: ServerConfig,
    stack: AsyncExitStack,
    diagnostics: Diagnostics,
    client: ClientSide,
) -> SdkSession:
    """Connected and past the handshake, entered on `stack` (see `transports.enter_client`)."""
    return SdkSession(await enter_client(config, stack, diagnostics, client))


class SdkSession:
    def __init__(self, client: Client) -> None:
        self.client = client

    @property
    def capabilities(self) -> Mapping[str, Any]:
        return self.client.server_capabilities.model_dump(by_alias=True, exclude_none=True)

    async def offerings(self, server: str) -> Listing:
        return await list_offerings(self.client, server)

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call_tool(name, arguments)
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)

    async def read_resource(self, uri: str) -> list[dict[str, Any]]:
        result = await self.client.read_resource(uri)
        return [
            item.model_dump(by_alias=True, mode="json", exclude_none=True)
            for item in result.contents
        ]

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> dict[str, Any]:
        result = await self.client.get_prompt(name, arguments)
        return result.model_dump(by_alias=True, mode="json", exclude_none=True)

    async def roots_changed(self) -> None:
        # Deprecated by the 2026-07-28 protocol, still what servers read: no warning printed.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await self.client.send_roots_list_changed()  # pyright: ignore[reportDeprecated]

    async def list_resources(self) -> list[dict[str, Any]]:
        found: list[Resource] = await every_page(
            lambda cursor: self.client.list_resources(cursor=cursor), lambda page: page.resources
        )
        return [item.model_dump(by_alias=True, mode="json", exclude_none=True) for item in found]
