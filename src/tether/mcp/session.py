"""A connected MCP server, past its handshake, as the rest of the package uses it: requests
in, the wire's JSON out. Two kinds: the MCP SDK's client (stdio, HTTP and SSE servers:
`sdk_session`) and tether's own small client for a server living in the client that drives
tether (`client_channel`), which never imports the SDK."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from tether.mcp.offerings import Listing


class McpSession(Protocol):
    @property
    def capabilities(self) -> Mapping[str, Any]:
        """The server's capabilities, as it declared them."""
        ...

    async def offerings(self, server: str) -> Listing:
        """Its tools and prompts; raises when its tools cannot be listed."""
        ...

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The `tools/call` result, checked."""
        ...

    async def read_resource(self, uri: str) -> list[dict[str, Any]]:
        """The contents of `resources/read`."""
        ...

    async def get_prompt(self, name: str, arguments: dict[str, str]) -> dict[str, Any]:
        """The `prompts/get` result, checked."""
        ...

    async def roots_changed(self) -> None:
        """Send `notifications/roots/list_changed`."""
        ...

    async def list_resources(self) -> list[dict[str, Any]]:
        """Every page of `resources/list`."""
        ...
