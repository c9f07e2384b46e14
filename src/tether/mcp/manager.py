"""The MCP servers of a session: connected together at start (awaited, or in the background
with each server's tools published as it connects), their tools offered under API-safe names,
requests routed to them, and all of them closed at the end.

A server that fails never takes the others down and never raises out of `start()`: it is
recorded as failed, with the cause. A server whose connection is lost is restarted (see
`supervisor`); a tool call it was lost under is that call's error, never sent again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from tether.mcp.catalog import (
    McpError,
    McpPrompt,
    McpPromptArgument,
    McpResource,
    McpTool,
    ServerStatus,
)
from tether.mcp.client_side import ClientSide
from tether.mcp.content import McpResult, cut, prompt_text, resource_text, tool_result
from tether.mcp.failures import describe
from tether.mcp.names import NameMap
from tether.mcp.servers import McpLimits, ServerConfig
from tether.mcp.session import McpSession
from tether.mcp.supervisor import CallLost, ServerDown, SupervisedServer

__all__ = [
    "McpError",
    "McpManager",
    "McpPrompt",
    "McpPromptArgument",
    "McpResource",
    "McpResult",
    "McpTool",
    "ServerStatus",
    "probe_servers",
]


class McpManager:
    """Connections to the configured servers. `await start()`, use, `await aclose()` (or
    `async with`). Tool calls and resource reads always return a result (a failure is one
    the model reads); prompts and resource listings raise `McpError`."""

    def __init__(
        self,
        servers: Sequence[ServerConfig],
        limits: McpLimits,
        roots: Sequence[Path] = (),
        client: ClientSide | None = None,
    ) -> None:
        """`roots`: the directories servers are told they may work in (the workspace);
        `client`: the session's answers to servers' questions (its roots win over `roots`)."""
        self._limits = limits
        self.client = client if client is not None else ClientSide(roots=tuple(roots))
        self._servers: dict[str, SupervisedServer] = {}
        self._problems: list[str] = []
        for config in servers:
            if config.name in self._servers:
                self._note(f'MCP server "{config.name}" is configured twice; the first is used')
            else:
                self._servers[config.name] = SupervisedServer(
                    config, limits.startup_timeout_s, self.client
                )
        self._tool_names = NameMap()
        self._prompt_names = NameMap()
        self._tools: dict[str, list[McpTool]] = {}
        self._prompts: dict[str, list[McpPrompt]] = {}
        self._connecting: dict[str, asyncio.Task[None]] = {}
        self._pending: set[str] = set()
        self._on_change: Callable[[str], None] | None = None
        """Servers whose first connection is under way."""

    async def start(self) -> None:
        """Connect every server at once, each within `startup_timeout_s`. Never raises."""
        self.start_in_background()
        await self.connected()

    def start_in_background(self, on_connected: Callable[[str], None] | None = None) -> None:
        """Start connecting every server at once and return: each is `pending` until it
        connects or fails; then its tools and prompts are published and `on_connected(name)`
        is called (also for one that failed)."""
        if self._connecting:
            return
        self._on_change = on_connected
        self._pending.update(self._servers)
        for name, server in self._servers.items():
            self._connecting[name] = asyncio.create_task(
                self._connect(server, on_connected), name=f"mcp-connect-{name}"
            )

    async def connected(self, names: Sequence[str] | None = None) -> None:
        """Wait until the servers named (all of them: None) have connected or failed."""
        tasks = [t for n, t in self._connecting.items() if names is None or n in names]
        if tasks:
            await asyncio.wait(tasks)

    async def _connect(
        self, server: SupervisedServer, on_connected: Callable[[str], None] | None
    ) -> None:
        try:
            await server.connect()
        finally:
            self._pending.discard(server.config.name)
        self._publish(server)
        if on_connected is not None:
            on_connected(server.config.name)

    def statuses(self) -> dict[str, ServerStatus]:
        return {name: self._status(server) for name, server in self._servers.items()}

    def problems(self) -> list[str]:
        """Servers that failed to start, tools left out, listings that failed: each once."""
        return list(self._problems)

    def server_info(self, name: str) -> dict[str, Any] | None:
        """The server's `serverInfo` from its last handshake, when it gave one."""
        server = self._servers.get(name)
        listing = server.listing if server is not None else None
        info = listing.server_info if listing is not None else None
        return dict(info) if info is not None else None

    def tools(self) -> list[McpTool]:
        """The tools of the servers not turned off (`set_enabled`)."""
        return [tool for name, tools in self._tools.items() if self._on(name) for tool in tools]

    def prompts(self) -> list[McpPrompt]:
        """The prompts of the servers not turned off."""
        return [p for name, prompts in self._prompts.items() if self._on(name) for p in prompts]

    def _on(self, name: str) -> bool:
        server = self._servers.get(name)
        return server is not None and not server.closed

    async def call(self, exposed: str, arguments: dict[str, Any]) -> McpResult:
        """Call a tool by its exposed name, within `call_timeout_s`. Cancelling the caller
        cancels the call (the server is told) and leaves the connection usable."""
        target = self._tool_names.resolve(exposed)
        if target is None:
            return McpResult(f"there is no MCP tool called {exposed}", is_error=True)
        name, tool = target
        server = self._servers.get(name)
        if server is None:  # removed while the session runs (`remove`)
            return McpResult(f'MCP server "{name}" was removed', is_error=True)
        limit = self._limits.call_timeout_s

        async def run(client: McpSession) -> dict[str, Any]:
            async with asyncio.timeout(limit):
                return await client.call_tool(tool, arguments)

        try:
            result = await server.run(run, once=True)  # a tool's work is never done twice
        except ServerDown as exc:
            return McpResult(f'MCP server "{name}" is down: {exc}', is_error=True)
        except CallLost as exc:
            return McpResult(f'MCP server "{name}" failed on tool "{tool}": {exc}', is_error=True)
        except TimeoutError:
            return McpResult(
                f'MCP tool "{tool}" of server "{name}" did not answer within {limit:g} s',
                is_error=True,
            )
        except Exception as exc:  # the server's error or nonsense: the model reads it
            return McpResult(
                f'MCP server "{name}" failed on tool "{tool}": {describe(exc)}', is_error=True
            )
        return tool_result(result, self._limits.max_output_chars)

    async def list_resources(self, server: str | None = None) -> list[McpResource]:
        """The resources of one server (raises `McpError` if it cannot list them), or of
        every connected server that has resources (one that fails is left out, as a problem)."""
        if server is not None:
            return await self._resources_of(self._known(server))
        found: list[McpResource] = []
        for candidate in self._servers.values():
            client = candidate.client
            if candidate.down or client is None or client.capabilities.get("resources") is None:
                continue
            try:
                found.extend(await self._resources_of(candidate))
            except McpError as exc:
                self._note(str(exc))
        return found

    async def read_resource(self, server: str, uri: str) -> McpResult:
        known = self._servers.get(server)
        if known is None:
            return McpResult(f'there is no MCP server called "{server}"', is_error=True)
        try:
            result = await known.run(lambda client: client.read_resource(uri))
        except ServerDown as exc:
            return McpResult(f'MCP server "{server}" is down: {exc}', is_error=True)
        except Exception as exc:  # the server's error: the model reads it
            message = f'MCP server "{server}" could not read {uri}: {describe(exc)}'
            return McpResult(message, is_error=True)
        return McpResult(cut(resource_text(result), self._limits.max_output_chars))

    async def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> str:
        """The prompt's messages as text; raises `McpError` naming the server on failure."""
        known = self._known(server)
        try:
            result = await known.run(lambda client: client.get_prompt(name, arguments))
        except ServerDown as exc:
            raise McpError(f'MCP server "{server}" is down: {exc}') from None
        except Exception as exc:  # the server's error, reported to the user
            message = f'MCP server "{server}" could not give prompt "{name}": {describe(exc)}'
            raise McpError(message) from exc
        return prompt_text(result)

    async def set_roots(self, roots: Sequence[Path]) -> None:
        """The directories servers may work in changed: answer with these from now on, and
        tell each connected server that declared it listens (`roots/list_changed`)."""
        self.client.roots = tuple(roots)
        for server in self._servers.values():
            if server.client is None or not self.client.roots:
                continue
            # A notification: one that cannot be sent (the server went away) is no error; the
            # next connection reads the new roots anyway.
            with contextlib.suppress(Exception):
                await server.run(lambda client: client.roots_changed())

    async def reconnect(self, server: str) -> ServerStatus:
        """Close the server's connection and connect again (also to one that is down)."""
        known = self._known(server)
        await self._stop_first_connection(server)
        await known.reconnect()
        self._publish(known)
        return self._status(known)

    async def set_enabled(self, server: str, enabled: bool) -> ServerStatus:
        """Turn a server off (its calls are refused, its tools and prompts no longer listed)
        or on again (it connects anew); `on_connected` is told either way."""
        known = self._known(server)
        await self._stop_first_connection(server)
        await known.set_enabled(enabled)
        if enabled:
            self._publish(known)
        if self._on_change is not None:  # its tools are offered, or no longer
            self._on_change(server)
        return self._status(known)

    async def _stop_first_connection(self, name: str) -> None:
        """Stop the server's first connection if it is still under way: what replaces it
        (`reconnect`, `set_enabled`) is what the user asked for, and the one cut short is
        no failure to publish or tell of."""
        task = self._connecting.get(name)
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    def add(self, config: ServerConfig) -> None:
        """Start connecting one more server while the session runs: `pending` until it
        connects or fails, then published and `on_connected` told, as at start. A server of
        the same name must be `remove`d first."""
        name = config.name
        if name in self._servers:
            raise McpError(f'there is an MCP server called "{name}" already')
        server = SupervisedServer(config, self._limits.startup_timeout_s, self.client)
        self._servers[name] = server
        self._pending.add(name)
        self._connecting[name] = asyncio.create_task(
            self._connect(server, self._on_change), name=f"mcp-connect-{name}"
        )

    async def remove(self, name: str) -> None:
        """Close a server and forget it (one still connecting is stopped): its tools and
        prompts are no longer listed, a call to one of them is refused; `on_connected` is
        told. Nothing happens for a name not known."""
        server = self._servers.pop(name, None)
        if server is None:
            return
        await self._stop_first_connection(name)
        self._connecting.pop(name, None)
        self._pending.discard(name)
        self._tools.pop(name, None)
        self._prompts.pop(name, None)
        await server.close()
        if self._on_change is not None:
            self._on_change(name)

    async def aclose(self) -> None:
        """Close every connection; stdio servers' processes are gone when this returns."""
        for task in self._connecting.values():
            task.cancel()  # a server still connecting is not waited for
        await asyncio.gather(*self._connecting.values(), return_exceptions=True)
        await asyncio.gather(*(server.close() for server in self._servers.values()))

    async def __aenter__(self) -> McpManager:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def _publish(self, server: SupervisedServer) -> None:
        """Name the server's tools and prompts, and note its problems. A name once given
        stays that tool's."""
        name = server.config.name
        listing = server.listing
        if server.down is not None:
            self._note(f'MCP server "{name}" failed to start: {server.down}')
        if listing is None:
            return
        for problem in listing.problems:
            self._note(problem)
        self._tools[name] = [
            McpTool(
                server=name,
                name=spec.name,
                exposed=self._tool_names.add(name, spec.name),
                description=spec.description,
                input_schema=dict(spec.input_schema),
                read_only=spec.read_only,
                annotations=dict(spec.annotations),
            )
            for spec in listing.tools
        ]
        self._prompts[name] = [
            McpPrompt(
                server=name,
                name=prompt.name,
                exposed=self._prompt_names.add(name, prompt.name),
                description=prompt.description,
                arguments=prompt.arguments,
            )
            for prompt in listing.prompts
        ]

    def _status(self, server: SupervisedServer) -> ServerStatus:
        tools = len(self._tools.get(server.config.name, ()))
        if server.down is not None:
            return ServerStatus("failed", tools, server.down)
        if server.closed:  # turned off: it offers no tools, whatever it listed before
            return ServerStatus("stopped")
        if server.config.name in self._pending:
            return ServerStatus("pending")
        return ServerStatus("connected", tools, connect_s=server.connect_s)

    def _known(self, server: str) -> SupervisedServer:
        known = self._servers.get(server)
        if known is None:
            raise McpError(f'there is no MCP server called "{server}"')
        return known

    async def _resources_of(self, server: SupervisedServer) -> list[McpResource]:
        name = server.config.name
        try:
            pages = await server.run(lambda client: client.list_resources())
        except ServerDown as exc:
            raise McpError(f'MCP server "{name}" is down: {exc}') from None
        except Exception as exc:  # the server's error, reported to the caller
            message = f'MCP server "{name}" could not list its resources: {describe(exc)}'
            raise McpError(message) from exc
        return [
            McpResource(
                name, str(r["uri"]), str(r["name"]), r.get("description") or "", r.get("mimeType")
            )
            for r in pages
        ]

    def _note(self, problem: str) -> None:
        if problem not in self._problems:
            self._problems.append(problem)


async def probe_servers(
    servers: Sequence[ServerConfig], limits: McpLimits
) -> dict[str, ServerStatus]:
    """Connect to every server, note how each is doing, and close them again (what
    `tether mcp list` shows). Runs under `asyncio.run` from synchronous code."""
    manager = McpManager(servers, limits)
    try:
        await manager.start()
        return manager.statuses()
    finally:
        await manager.aclose()
