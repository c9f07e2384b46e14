"""`tether mcp list|get|add|add-json|remove|serve`: the configured MCP servers, managed as
`claude mcp` manages them.

Project servers (`.mcp.json`, from the repository) are never started here until they were
approved (`enabledMcpjsonServers`, or the REPL's question): listing a cloned repository's
servers must not run its commands.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tether.cli.mcp_added import add_json, save_server
from tether.cli.mcp_decisions import kept_off_elsewhere, users_own_switches
from tether.cli.mcp_server_text import describe, server_lines, summary
from tether.cli.mcp_sources import where_from, why_off
from tether.cli.ownership import Ownership
from tether.cli.terminal_text import terminal_safe
from tether.cli.untrusted_settings import restrict_settings
from tether.config.project import project_root
from tether.config.settings import load_settings, settings_files, tether_home
from tether.config.trust import workspace_trust
from tether.mcp.config import (
    SERVER_NAME,
    McpConfig,
    claude_decisions,
    is_project_server_enabled,
    is_server_turned_off,
    load_limits,
    load_servers,
    with_decisions,
)
from tether.mcp.config_files import (
    WRITABLE_SCOPES,
    WritableScope,
    claude_file,
    remove_server,
    scope_file,
    server_entries,
)
from tether.mcp.servers import ServerConfig
from tether.protocol import ConfigError

if TYPE_CHECKING:
    from tether.mcp.catalog import ServerStatus

_ADD_OPTIONS_WITH_VALUE = {"-s", "--scope", "-t", "--transport", "-e", "--env", "-H", "--header"}


@dataclass(frozen=True)
class _Place:
    workspace: Path
    home: Path
    tether_home: Path
    env: Mapping[str, str]
    settings: Mapping[str, Any]
    trusted: bool = True
    """Whether the workspace is trusted: otherwise its own files' servers are not started."""
    problems: tuple[str, ...] = ()
    """What is wrong with the decisions `~/.claude.json` keeps for the project."""
    off_in: Mapping[tuple[str, str], list[Path]] = field(default_factory=dict)
    """The files that turn each (key, server) off (`mcp_decisions.kept_off_elsewhere`)."""

    def scope_file(self, scope: WritableScope) -> Path:
        return scope_file(scope, self.workspace, tether_home=self.tether_home)

    def servers(self) -> McpConfig:
        config = load_servers(
            self.workspace, home=self.home, tether_home=self.tether_home, env=self.env
        )
        return McpConfig(config.servers, (*config.problems, *self.problems))


def main(argv: list[str]) -> int:
    """0: done; 1: a server failed or the configuration has problems; 2: usage or config error."""
    if argv[:1] == ["serve"]:
        return int(import_module("tether.cli.mcp_serve").main(argv[1:]))
    command_line: list[str] = []
    if argv[:1] == ["add"]:
        head, command_line = _split_add(argv[1:])
        args = _parser().parse_args(["add", *head])
        if command_line and (args.transport != "stdio" or _is_url(command_line[0])):
            # A URL takes no arguments: what follows it is options again, as in
            # `claude mcp add --transport http NAME URL --header "..."`.
            args = _parser().parse_args(["add", *head, *command_line[1:]])
            command_line = command_line[:1]
    else:
        args = _parser().parse_args(argv)
    try:
        place = _place(args.cwd)
        if args.command == "list":
            return _list(place, connect=not args.no_connect, as_json=args.json)
        if args.command == "get":
            return _get(place, args)
        if args.command == "add":
            return _add(place, args, command_line)
        if args.command == "add-json":
            path, scope = place.scope_file(args.scope), args.scope
            add_json(path, scope, args.name, args.json, workspace=place.workspace, env=place.env)
            return 0
        return _remove(place, args.name, args.scope)
    except ConfigError as e:
        print(f"tether: error: {terminal_safe(str(e))}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tether mcp", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list", help="every configured server, connected to check it")
    listing.add_argument("--json", action="store_true", help="print JSON")
    get = sub.add_parser("get", help="one server's configuration and tools")
    get.add_argument("name")
    get.add_argument("--json", action="store_true", help="print JSON")
    get.add_argument("--show-secrets", action="store_true", help="show env and header values")
    add = sub.add_parser(
        "add",
        help="add a server to a scope's file",
        usage="tether mcp add [options] NAME COMMAND_OR_URL [ARGS...]\n"
        "       tether mcp add [options] NAME -- COMMAND [ARGS...]",
    )
    add.add_argument("name")
    add.add_argument("-s", "--scope", choices=WRITABLE_SCOPES, default="local")
    add.add_argument("-t", "--transport", choices=("stdio", "http", "sse"), default="stdio")
    add.add_argument("-e", "--env", action="append", default=[], metavar="KEY=VALUE")
    add.add_argument("-H", "--header", action="append", default=[], metavar='"NAME: VALUE"')
    add_json = sub.add_parser(
        "add-json", help="add a server given as JSON (or - to read it from stdin) to a scope's file"
    )
    add_json.add_argument("name")
    add_json.add_argument("json", help='the entry, as in .mcp.json: {"command": ...} or {"url"...}')
    add_json.add_argument("-s", "--scope", choices=WRITABLE_SCOPES, default="local")
    remove = sub.add_parser("remove", help="remove a server from a scope's file")
    remove.add_argument("name")
    remove.add_argument("-s", "--scope", choices=WRITABLE_SCOPES, help="default: where it is")
    sub.add_parser("serve", help="run tether itself as an MCP server (stdio)")
    for command in (listing, get):
        command.add_argument("--no-connect", action="store_true", help="do not start servers")
    for command in (listing, get, add, add_json, remove):
        command.add_argument("--cwd", type=Path, help="the project (default: here)")
    return p


def _split_add(argv: list[str]) -> tuple[list[str], list[str]]:
    """tether's options and NAME; then the server's command line: everything from
    COMMAND_OR_URL on (or after a `--` before it) belongs to the server, dashes included."""
    positionals = 0
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--":
            return argv[:i], argv[i + 1 :]
        if token in _ADD_OPTIONS_WITH_VALUE or token == "--cwd":
            i += 2
            continue
        if not token.startswith("-") or token == "-":
            positionals += 1
            if positionals == 2:
                return argv[:i], argv[i:]
        i += 1
    return argv, []


def _place(cwd: Path | None) -> _Place:
    workspace = project_root(cwd or Path.cwd(), user_home=Path.home())
    home = tether_home()
    user_home = Path.home()
    settings = load_settings(settings_files(workspace, home=home, user_home=user_home))
    trust = workspace_trust(workspace, tether_home=home, user_home=user_home, env=os.environ)
    owners = Ownership(workspace, user_home, home)
    if not trust.trusted:  # as in a session: the workspace's files only restrict
        settings = restrict_settings(settings, owners)
    settings, notes = users_own_switches(settings, owners)
    env = {**settings.env, **os.environ}  # the real environment wins, as in a session
    problems = notes
    decisions = claude_decisions(workspace, home=user_home, env=env, problems=problems)
    data = with_decisions(settings.data, decisions)  # Claude Code's `/mcp`, read only
    off_in = kept_off_elsewhere(settings.layers, None, claude_file(user_home, env), decisions)
    return _Place(workspace, user_home, home, env, data, trust.trusted, tuple(problems), off_in)


def _list(place: _Place, *, connect: bool, as_json: bool) -> int:
    config = place.servers()
    statuses = _probe(place, config.servers) if connect else {}
    failed = any(s.state != "connected" for s in statuses.values())
    if as_json:
        servers = [
            {**describe(s, show_secrets=False), **_state_json(place, s, statuses.get(s.name))}
            for s in config.servers
        ]
        print(json.dumps({"servers": servers, "problems": list(config.problems)}))
    else:
        if not config.servers:
            print("No MCP servers configured. Add one: tether mcp add NAME -- COMMAND [ARGS...]")
        for server in config.servers:
            state = _state_text(place, server, statuses.get(server.name), connect=connect)
            line = f"{server.name}: {summary(server)} [{where_from(server, place.workspace)}]"
            print(line + (f" - {terminal_safe(state)}" if state else ""))
        for problem in config.problems:
            print(f"problem: {terminal_safe(problem)}")
    return 1 if failed or config.problems else 0


def _get(place: _Place, args: argparse.Namespace) -> int:
    name: str = args.name
    config = place.servers()
    server = next((s for s in config.servers if s.name == name), None)
    related = [p for p in config.problems if f"server {name!r}" in p]
    if server is None:
        for problem in related:
            print(f"problem: {terminal_safe(problem)}", file=sys.stderr)
        known = ", ".join(s.name for s in config.servers) or "none"
        raise ConfigError(f"no usable MCP server named {name!r} (configured: {known})")
    status, tools = (None, None) if args.no_connect else _inspect(place, server)
    if args.json:
        body = {**describe(server, args.show_secrets), **_state_json(place, server, status)}
        print(json.dumps({**body, "tool_names": tools, "problems": related}))
    else:
        _print_server(place, server, status, tools, show_secrets=args.show_secrets)
        for problem in related:
            print(f"  problem: {terminal_safe(problem)}")
    return 1 if (status is not None and status.state != "connected") or related else 0


def _add(place: _Place, args: argparse.Namespace, command_line: list[str]) -> int:
    name: str = args.name
    scope: WritableScope = args.scope
    if not command_line:
        raise ConfigError("missing COMMAND_OR_URL: tether mcp add [options] NAME -- COMMAND ...")
    if not SERVER_NAME.fullmatch(name):
        raise ConfigError(f"bad server name {name!r}: use letters, digits, '_', '-' and '.'")
    target, *rest = command_line
    if args.transport == "stdio":
        if args.header:
            raise ConfigError("--header is for http and sse servers")
        if _is_url(target):
            print(f"note: {target} is run as a command; for a URL use -t http", file=sys.stderr)
        env = dict(_pair(item, "=", "--env", "KEY=VALUE") for item in args.env)
        entry: dict[str, Any] = {"type": "stdio", "command": target, "args": rest, "env": env}
    else:
        if args.env:
            raise ConfigError("--env is for stdio servers (an http server's keys go in --header)")
        if not _is_url(target) and not target.startswith("${"):
            raise ConfigError(f"{target!r} is not a URL (http:// or https://)")
        entry = {"type": args.transport, "url": target}
        if args.header:
            entry["headers"] = dict(_pair(h, ":", "--header", '"Name: value"') for h in args.header)
    save_server(place.scope_file(scope), scope, name, entry, args.transport)
    return 0


def _is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


def _pair(item: str, separator: str, option: str, shape: str) -> tuple[str, str]:
    key, found, value = item.partition(separator)
    if not found or not key.strip():
        raise ConfigError(f"{option} takes {shape}, not {item!r}")
    return key.strip(), value.strip() if separator == ":" else value


def _remove(place: _Place, name: str, scope: WritableScope | None) -> int:
    candidates = WRITABLE_SCOPES if scope is None else ()  # -s: only that scope's file is read
    holders: list[WritableScope] = [
        s for s in candidates if name in server_entries(place.scope_file(s))
    ]
    if len(holders) > 1:
        raise ConfigError(
            f"server {name!r} is in several scopes ({', '.join(holders)}); choose one with -s"
        )
    chosen = scope or (holders[0] if holders else None)
    if chosen and remove_server(place.scope_file(chosen), name):
        print(f"Removed MCP server {name!r} from the {chosen} scope: {place.scope_file(chosen)}")
        return 0
    where = f"the {scope} scope ({place.scope_file(scope)})" if scope else "tether's files"
    raise ConfigError(f"no MCP server {name!r} in {where}{_elsewhere(place, name)}")


def _elsewhere(place: _Place, name: str) -> str:
    """Where else a server of that name is configured, in files tether does not write."""
    claude = claude_file(place.home, place.env)
    try:
        in_claude = name in server_entries(claude) or name in server_entries(
            claude, project=str(place.workspace)
        )
    except ConfigError:
        in_claude = False
    if in_claude:
        return (
            f"; it is in {claude}, Claude Code's file, which tether never writes "
            f"(use `claude mcp remove {name}`)"
        )
    if any(s.name == name and s.scope == "seed" for s in place.servers().servers):
        return "; it is in the seed's config/mcp_config.yaml: edit that file"
    return ""


def _probe(place: _Place, servers: Sequence[ServerConfig]) -> dict[str, ServerStatus]:
    """Connect to the servers that may be started, all at once, and close them again."""
    startable = [s for s in servers if _approval(place, s) in ("enabled", "approved")]
    if not startable:
        return {}
    limits = load_limits(place.settings, place.env)
    from tether.mcp.manager import probe_servers  # the MCP SDK takes most of a second to load

    return asyncio.run(probe_servers(startable, limits))


def _inspect(place: _Place, server: ServerConfig) -> tuple[ServerStatus | None, list[str] | None]:
    """One server's status and its tools' names (nothing for a project server not approved)."""
    if _approval(place, server) not in ("enabled", "approved"):
        return None, None
    limits = load_limits(place.settings, place.env)
    from tether.mcp.manager import McpManager

    async def connect() -> tuple[ServerStatus, list[str]]:
        async with McpManager([server], limits) as manager:
            return manager.statuses()[server.name], [t.name for t in manager.tools()]

    return asyncio.run(connect())


def _approval(place: _Place, server: ServerConfig) -> str:
    """For a repository's server: "approved", "needs approval" or "disabled"; for another
    (the user's own, which needs no approval): "disabled" when turned off for the project
    (`/mcp disable`), else "enabled"; "not trusted" for any server of an untrusted
    workspace's files."""
    owners = Ownership(place.workspace, place.home, place.tether_home)
    if not place.trusted and owners.needs_trust(server.source):
        return "not trusted"
    if server.scope not in ("project", "seed"):
        return "disabled" if is_server_turned_off(server.name, place.settings) else "enabled"
    enabled = is_project_server_enabled(server.name, place.settings)
    return {True: "approved", False: "disabled", None: "needs approval"}[enabled]


def _state_text(
    place: _Place, server: ServerConfig, status: ServerStatus | None, *, connect: bool
) -> str:
    approval = _approval(place, server)
    if approval == "not trusted":
        return "not started: the workspace is not trusted (run tether here once, or tether trust)"
    if approval == "needs approval":
        return "not started: needs approval (tether asks in the REPL)"
    if approval == "disabled":
        key = (
            "disabledMcpjsonServers"
            if server.scope in ("project", "seed")
            else "disabledMcpServers"
        )
        why = why_off(key, server.name, place.off_in, place.workspace)
        return f"not started: disabled for this project ({why})"
    if status is None:
        return "not checked" if connect else ""
    if status.state == "connected":
        return f"connected, {status.tools} tool{'s' * (status.tools != 1)}"
    return f"{status.state}: {status.error or 'no reason given'}"


def _state_json(place: _Place, server: ServerConfig, status: ServerStatus | None) -> dict[str, Any]:
    return {
        "approval": _approval(place, server),
        "state": status.state if status else None,
        "tools": status.tools if status else None,
        "error": status.error if status else None,
    }


def _print_server(
    place: _Place,
    server: ServerConfig,
    status: ServerStatus | None,
    tools: list[str] | None,
    *,
    show_secrets: bool,
) -> None:
    for line in server_lines(server, show_secrets=show_secrets):
        print(line)
    state = _state_text(place, server, status, connect=status is not None)
    if state:
        print(f"  Status: {terminal_safe(state)}")
    if tools:
        print(f"  Tools: {terminal_safe(', '.join(tools))}")
    for scope in WRITABLE_SCOPES:  # not for Claude Code's file, nor the seed's
        if server.scope == scope and server.source == place.scope_file(scope):
            print(f"\nTo remove it: tether mcp remove {server.name} -s {scope}")
