"""MCP servers in a session: which ones, connecting them all at once (before the first request,
or in the background in the REPL), and their tools, resources and prompts as tether tools.

Servers configured in the workspace's own files (`.mcp.json`, the seed's
`config/mcp_config.yaml`, `.tether/mcp.local.json`) start only in a trusted workspace (see
`tether.config.trust`). There, the repository's shared ones (`.mcp.json` and the seed's YAML)
also need the user's yes once, in the REPL, unless the trust question already showed them and
was answered yes (`trust_prompt.approved_servers`); headless takes them as configured.

When the MCP tools' definitions would fill more than `toolSearchShare` of the context window,
they are deferred: the model gets ToolSearch and CallTool instead, and the list of tools sent
with each request stays the same all session (so does its cached prefix)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether.cli.client_parts import ClientParts
from tether.cli.mcp_decisions import kept_off_elsewhere, users_own_switches
from tether.cli.safety import remember_setting
from tether.cli.workspace_review import Ownership
from tether.config.settings import Settings
from tether.config.trust import remembered_settings
from tether.core.questions import StartupQuestion
from tether.core.session import Session
from tether.mcp.config import (
    McpConfig,
    claude_decisions,
    is_project_server_enabled,
    is_server_turned_off,
    load_limits,
    load_servers,
    with_decisions,
)
from tether.mcp.config_files import claude_file
from tether.mcp.environment import inherited
from tether.mcp.servers import (
    ClientTransport,
    McpLimits,
    ServerConfig,
    StdioTransport,
)
from tether.permissions import hidden_tools
from tether.protocol import Event, Notice
from tether.shown_urls import shown_url
from tether.slotted import replaced
from tether.tools.base import Tool
from tether.tools.deferred import DeferredTools
from tether.tools.registry import ToolRegistry

if TYPE_CHECKING:  # the MCP SDK takes most of a second to import: only with servers to run
    from tether.mcp.manager import McpManager, McpPrompt

TRUTHY = frozenset({"1", "true", "yes", "on"})
"""Values of a variable that turn a switch on."""
APPROVED_SCOPES = ("project", "seed")
"""Servers a repository shares: approved once each (`enabledMcpjsonServers`), like Claude Code's
`.mcp.json` ones; the seed's YAML servers are approved exactly the same way."""


@dataclass
class McpSetup:
    """The session's MCP servers, from configuration to tools."""

    servers: list[ServerConfig]
    limits: McpLimits
    window: int
    """The model's context window, in tokens (for the tool-search threshold)."""
    local_settings: Path
    """Where the decisions about servers are remembered (`tether.cli.mcp_decisions`)."""
    approved: frozenset[str] = frozenset()
    """Approved already this session (by the trust question that listed them)."""
    manager: McpManager | None = None
    roots: tuple[Path, ...] = ()
    """The directories servers may work in: the workspace and the added ones."""
    background: bool = False
    """Connect without holding the first request (the REPL; `MCP_CONNECTION_NONBLOCKING`)."""
    client: ClientParts = field(default_factory=ClientParts)
    """The SDK client driving the session: its own servers (`"type": "sdk"`, also those it
    adds later) and its answers to servers' forms."""
    env: Mapping[str, str] = field(default_factory=dict[str, str])
    """`${VAR}` in servers given while the session runs."""
    inherited_env: Mapping[str, str] = field(default_factory=dict[str, str])
    """Settings' `env` (credentials withheld), for every stdio server."""
    named_by_client: set[str] = field(default_factory=set[str])
    """Servers a `mcp_set_servers` request named: a later one that leaves them out removes them."""
    failure_listeners: list[Callable[[str], None]] = field(
        default_factory=list[Callable[[str], None]]
    )
    """Told the name of each server that fails to connect in the background (the REPL says so
    in a notice line, as Claude Code does); each failure once."""
    decisions: Mapping[str, list[str]] = field(default_factory=dict[str, list[str]])
    """The decisions about servers `~/.claude.json` keeps for the project (read only)."""
    kept_off: Mapping[tuple[str, str], list[Path]] = field(
        default_factory=dict[tuple[str, str], list[Path]]
    )
    """The files but `local_settings` that turn each (key, server) off
    (`mcp_decisions.kept_off_elsewhere`)."""
    turned_off: frozenset[str] = frozenset()
    """The servers (not the repository's) the user turned off for the project, in their own
    files (`mcp_decisions.users_own_switches`) or Claude Code's `/mcp`: not started."""
    _failures_told: set[str] = field(default_factory=set[str])
    _attached: tuple[Session, frozenset[str], Callable[[Sequence[str]], str]] | None = None
    _declined: set[str] = field(default_factory=set[str])
    _builtin: list[Tool] = field(default_factory=list[Tool])
    _offered: bool = False
    """Whether servers' tools are in the session's tools now."""
    _prompts_offered: list[str] = field(default_factory=list[str])
    _carried: bool = False
    """Handed to the next session (`carry`): the closing one leaves the servers running."""

    def questions(self, settings_data: Mapping[str, Any]) -> list[StartupQuestion]:
        """One question per project server the user has not decided on yet; the servers
        turned off for the project (`/mcp disable`, kept) are left out."""
        questions: list[StartupQuestion] = []
        settings_data = with_decisions(settings_data, self.decisions)
        for server in self.servers:
            if server.scope not in APPROVED_SCOPES:
                if server.name in self.turned_off:
                    self._declined.add(server.name)
                continue
            decided = is_project_server_enabled(server.name, settings_data)
            if decided is None and server.name in self.approved:
                decided = True
            if decided is False:
                self._declined.add(server.name)
            elif decided is None and server.name not in self._declined:
                questions.append(
                    StartupQuestion(
                        f"Use the MCP server {server.name!r} that this repository's "
                        f"{server.source.name} configures ({_describe(server)})?",
                        self._answerer(server.name),
                    )
                )
        return questions

    def decline(self, names: Sequence[str]) -> None:
        """Leave these servers out, not asking about them (the user answered already)."""
        self._declined.update(names)

    def state(self, name: str) -> str:
        """Claude Code's name for the server's state; "disabled" for one the user left out
        (at the start-up list, or in settings), which is not started."""
        from tether.cli.sdk_facts import server_state

        statuses = self.manager.statuses() if self.manager is not None else {}
        status = statuses.get(name)
        return "disabled" if status is None and name in self._declined else server_state(status)

    def enable_declined(self, name: str) -> bool:
        """Start a server left out (`/mcp enable`); False when `name` is none."""
        server = next((s for s in self.servers if s.name == name), None)
        if server is None or name not in self._declined:
            return False
        self._declined.discard(name)
        self.servers = [s for s in self.servers if s is not server]
        self.add(server)
        return True

    def _answerer(self, name: str) -> Callable[[bool, bool], None]:
        def answer(yes: bool, remember: bool) -> None:
            if remember:
                key = "enabledMcpjsonServers" if yes else "disabledMcpjsonServers"
                remember_setting(self.local_settings, key, name)
            if not yes:
                self._declined.add(name)

        return answer

    async def connect(
        self,
        session: Session,
        emit: Callable[[Event], None],
        hidden: frozenset[str],
        prompt_for: Callable[[Sequence[str]], str],
    ) -> None:
        """Start every server at once. In the background (`background`): the client's own
        servers are awaited (they answer at once), the others are `pending` and their tools
        are offered from the first request after each connects; else all are awaited. Then
        their tools are offered (all, or through tool search)."""
        chosen = [s for s in self.servers if s.name not in self._declined]
        if not chosen:
            return
        manager = self._start(chosen, session, hidden, prompt_for)
        told = set(manager.problems())
        if self.background:
            own = [s.name for s in chosen if isinstance(s.transport, ClientTransport)]
            await manager.connected(own)
        else:
            await manager.connected()
        failed = self._failures_told if self.failure_listeners else set[str]()
        for problem in manager.problems():
            # A failure a listener was told of is not said twice.
            if problem not in told and not any(_names_server(problem, n) for n in failed):
                emit(Notice(level="warning", message=f"MCP: {problem}"))

    def attach(
        self, session: Session, hidden: frozenset[str], prompt_for: Callable[[Sequence[str]], str]
    ) -> None:
        """The session whose tools the servers' tools join: `hidden` are left out, and
        `prompt_for` rebuilds its system prompt for the tools it then has."""
        self._attached = (session, hidden, prompt_for)

    def _start(
        self,
        servers: Sequence[ServerConfig],
        session: Session,
        hidden: frozenset[str],
        prompt_for: Callable[[Sequence[str]], str],
    ) -> McpManager:
        """The manager, connecting `servers`; the tools are offered as each one connects."""
        from tether.cli.mcp_client_side import session_client_side
        from tether.mcp.manager import McpManager

        client = session_client_side(session, self.roots, self.client.elicit)
        self.manager = McpManager(servers, self.limits, client=client)
        self._builtin = session.agent.tools.all_tools()

        def connected(name: str) -> None:
            # The session attached now: `/clear` may have carried the servers into another.
            self._offer(*(self._attached or (session, hidden, prompt_for)))
            self._tell_failure(name)

        self.manager.start_in_background(connected)
        return self.manager

    def _tell_failure(self, name: str) -> None:
        """Tell the listeners that `name` failed to connect, the first time it does."""
        assert self.manager is not None
        status = self.manager.statuses().get(name)
        if status is None or status.state != "failed" or name in self._failures_told:
            return
        if self.failure_listeners:
            self._failures_told.add(name)
        for listener in self.failure_listeners:
            listener(name)

    def add(self, server: ServerConfig) -> None:
        """Connect one more server while the session runs (`pending` until it connects; its
        tools are offered from the next request after). A server of that name is `remove`d
        first."""
        if self._attached is None:
            raise RuntimeError("the MCP servers are not attached to a session")
        server = _with_env(server, self.inherited_env)
        self.servers.append(server)
        if self.manager is None:
            self._start([server], *self._attached)
        else:
            self.manager.add(server)

    async def remove(self, name: str) -> None:
        """Close a server and forget it: its tools are gone from the next request."""
        self.servers = [s for s in self.servers if s.name != name]
        if self.manager is not None:
            await self.manager.remove(name)

    def _offer(
        self, session: Session, hidden: frozenset[str], prompt_for: Callable[[Sequence[str]], str]
    ) -> None:
        """Offer the tools and prompts of the servers connected so far (called as each one
        connects: the tools sent change from the next request on)."""
        from tether.cli.mcp_tools import definition_tokens, is_hidden, mcp_tool, resource_tools

        assert self.manager is not None
        tools = [
            mcp_tool(self.manager, t)
            for t in self.manager.tools()
            if not is_hidden(t.exposed, hidden)
        ]
        connected = [n for n, s in self.manager.statuses().items() if s.state == "connected"]
        if connected:
            tools.extend(resource_tools(self.manager))
        agent = session.agent
        for exposed in self._prompts_offered:
            session.commands.pop(exposed, None)
        self._prompts_offered = [p.exposed for p in self.manager.prompts()]
        for prompt in self.manager.prompts():
            session.commands[prompt.exposed] = self._prompt_command(prompt)
        if not tools and not self._offered:
            return
        self._offered = bool(tools)  # a server turned off takes its tools out again
        builtin = self._builtin
        if definition_tokens(tools) > self.limits.tool_search_share * self.window:
            from tether.tools.tool_search import search_tools

            deferred = DeferredTools(tools)
            summary = f"{len(tools)} tools of the MCP servers {', '.join(connected)} wait there."
            agent.tools = ToolRegistry([*builtin, *search_tools(deferred, summary)], deferred)
        else:
            agent.tools = ToolRegistry([*builtin, *tools])
        agent.system_prompt = prompt_for(agent.tools.names())

    def _prompt_command(self, prompt: McpPrompt) -> Callable[[str], Awaitable[str]]:
        """`/mcp__server__prompt args`: the words fill the prompt's arguments in order; the
        last argument takes the rest of the line."""

        async def run(line: str) -> str:
            assert self.manager is not None
            names = [a.name for a in prompt.arguments]
            words = line.split(maxsplit=max(0, len(names) - 1)) if names else []
            return await self.manager.get_prompt(
                prompt.server, prompt.name, dict(zip(names, words, strict=False))
            )

        return run

    def carry(self) -> None:
        """Keep the servers for the session `/clear` starts next (`adopt`): the closing
        session's `aclose` leaves them running."""
        self._carried = True

    def adopt(self, session: Session) -> None:
        """Serve `session` (attached already) with the servers carried from the one before:
        their questions to the client are its now, and the tools of those connected are
        offered from its first request."""
        from tether.cli.mcp_client_side import session_client_side

        assert self.manager is not None
        assert self._attached is not None
        fresh = session_client_side(session, self.manager.client.roots, self.client.elicit)
        self.manager.client.elicit, self.manager.client.sample = fresh.elicit, fresh.sample
        self._builtin = session.agent.tools.all_tools()
        self._prompts_offered = []
        self._offered = False
        self._offer(*self._attached)

    async def aclose(self) -> None:
        if self._carried:
            self._carried = False
            return
        if self.manager is not None:
            await self.manager.aclose()


def mcp_setup(
    workspace: Path,
    *,
    home: Path,
    tether_home: Path,
    env: Mapping[str, str],
    settings: Settings,
    window: int,
    trusted: bool = True,
    approved: tuple[str, ...] = (),
    declined: tuple[str, ...] = (),
    command_line: McpConfig | None = None,
    strict: bool = False,
    plugins: McpConfig | None = None,
) -> tuple[McpSetup, list[str]]:
    """The servers configured for this workspace, and the problems found reading them. Not
    `trusted`: the servers of the workspace's own files are left out (the session's one
    warning about the untrusted workspace names them). `command_line` (`--mcp-config`, the
    user's own choice) adds servers that replace configured ones of the same name; `strict`
    keeps only those. `plugins`: the servers of the session's plugins (left out by
    `strict`)."""
    config = (
        McpConfig()
        if strict
        else load_servers(workspace, home=home, tether_home=tether_home, env=env)
    )
    servers = list(config.servers)
    if not trusted:
        owners = Ownership(workspace, home, tether_home)
        servers = [s for s in servers if not owners.needs_trust(s.source)]
    problems = list(config.problems)
    settings, notes = users_own_switches(settings, Ownership(workspace, home, tether_home))
    problems.extend(notes)
    if plugins is not None and not strict:
        servers.extend(plugins.servers)
        problems.extend(plugins.problems)
    if command_line is not None:
        chosen = {s.name for s in command_line.servers}
        servers = [s for s in servers if s.name not in chosen] + list(command_line.servers)
        problems.extend(command_line.problems)
    # Settings' `env` reaches stdio servers as the rest of tether's environment does (its
    # credentials withheld); a server's own `env` wins.
    named = inherited({name: env[name] for name in settings.env if name in env})
    servers = [_with_env(s, named) for s in servers]
    limits = load_limits(settings.data, env)
    # The user's answers go to the user's own store: a repository can ship its local file.
    local = remembered_settings(tether_home, workspace)
    setup = McpSetup(servers, limits, window, local, frozenset(approved), env=env)
    setup.inherited_env = named
    setup.decisions = claude_decisions(workspace, home=home, env=env, problems=problems)
    claude = claude_file(home, env)
    setup.kept_off = kept_off_elsewhere(settings.layers, local, claude, setup.decisions)
    switches = with_decisions(settings.data, setup.decisions)
    setup.turned_off = frozenset(s.name for s in servers if is_server_turned_off(s.name, switches))
    setup.decline(declined)
    return setup, problems


def _names_server(problem: str, name: str) -> bool:
    return problem.startswith(f'MCP server "{name}" failed to start:')


def _with_env(server: ServerConfig, env: Mapping[str, str]) -> ServerConfig:
    transport = server.transport
    if not env or not isinstance(transport, StdioTransport):
        return server
    return replaced(server, transport=replace(transport, env={**env, **transport.env}))


def attach_mcp(
    session: Session,
    setup: McpSetup,
    settings: Settings,
    prompt_for: Callable[[Sequence[str]], str],
) -> None:
    """Questions for the user first (the REPL asks them), then connect before the first turn."""
    gate = session.agent.gate
    hidden = hidden_tools(gate.permissions.rules) if gate is not None else frozenset[str]()
    setup.attach(session, hidden, prompt_for)
    session.on_close.append(setup.aclose)  # servers may be added while it runs
    if not setup.servers:
        return
    if setup.manager is not None:  # carried over by `/clear`: connected, decided on already
        setup.adopt(session)
        return
    session.startup_questions.extend(setup.questions(settings.data))

    async def connect(emit: Callable[[Event], None]) -> None:
        await setup.connect(session, emit, hidden, prompt_for)

    session.preparations.append(connect)


def _describe(server: ServerConfig) -> str:
    transport = server.transport
    if isinstance(transport, StdioTransport):
        return "runs: " + " ".join([transport.command, *transport.args])
    if isinstance(transport, ClientTransport):
        return "is served by the client"
    return f"connects to {shown_url(transport.url, path=True)}"
