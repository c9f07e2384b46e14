"""Reading the configured MCP servers from every place Claude Code and the seed keep them, and
the limits their connections run under.

Sources, lowest precedence first; a later one replaces a server of the same name:

1. seed: `<workspace>/config/mcp_config.yaml`, `servers: [{name, transport, command, ...}]`
2. user: `~/.claude.json` `mcpServers` (Claude Code's), then `<tether_home>/mcp.json`
3. project: `<workspace>/.mcp.json`
4. local: `~/.claude.json` `projects[<workspace>].mcpServers`, then `.tether/mcp.local.json`

A problem in one server or one file is reported and the rest still loads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, cast

from tether import bounded_json
from tether.mcp.config_files import (
    WritableScope,
    claude_file,
    kind_of,
    project_entry,
    read_yaml_file,
    scope_file,
    seed_file,
    server_entries,
)
from tether.mcp.entries import NAME_RULE, Source, Unusable, server_config, usable_name
from tether.mcp.servers import JsonRpcExchange, McpLimits, ServerConfig, StdioTransport
from tether.protocol import ConfigError
from tether.slotted import Slotted

SERVER_NAME = re.compile(r"[A-Za-z0-9_.-]+")
"""The names `tether mcp add` writes (Claude Code's own rule there)."""


class McpConfig(Slotted):
    """The servers that can be used, and what is wrong with the configuration."""

    __slots__ = ("problems", "servers")
    servers: Final[tuple[ServerConfig, ...]]
    """Sorted by name."""
    problems: Final[tuple[str, ...]]
    """One message per problem, naming the file and the server."""

    def __init__(
        self, servers: tuple[ServerConfig, ...] = (), problems: tuple[str, ...] = ()
    ) -> None:
        self.servers = servers
        self.problems = problems


def load_servers(
    workspace: Path, *, home: Path, tether_home: Path, env: Mapping[str, str]
) -> McpConfig:
    """Every configured server; `home` is the user's home directory, `env` gives `${VAR}`."""
    found: dict[str, ServerConfig | None] = {}
    problems: list[str] = []

    def take(source: Source, entries: Iterable[tuple[str, object]], type_key: str) -> None:
        for name, entry in entries:
            try:
                if not usable_name(name):
                    raise Unusable(NAME_RULE)
                found[name] = server_config(name, entry, source, type_key, workspace, env, problems)
            except Unusable as e:
                problems.append(f"{source.label}: server {name!r}: {e}")
                found[name] = None  # a broken entry still hides the one it would replace

    def scope_path(scope: WritableScope) -> Path:
        return scope_file(scope, workspace, tether_home=tether_home)

    claude = claude_file(home, env)
    sources = [
        Source(claude, "user"),
        Source(scope_path("user"), "user"),
        Source(scope_path("project"), "project"),
        Source(claude, "local", project=str(workspace)),
        Source(scope_path("local"), "local"),
    ]
    try:
        take(Source(seed_file(workspace), "seed"), _seed_entries(workspace, problems), "transport")
    except ConfigError as e:
        problems.append(str(e))
    for source in sources:
        try:
            take(source, server_entries(source.path, project=source.project).items(), "type")
        except ConfigError as e:
            problems.append(str(e))
    servers = [found[name] for name in sorted(found)]
    # `~/.claude.json` is read for two scopes: a broken one is told once.
    return McpConfig(tuple(s for s in servers if s is not None), tuple(dict.fromkeys(problems)))


def command_line_servers(
    values: Sequence[str],
    *,
    workspace: Path,
    env: Mapping[str, str],
    exchange: JsonRpcExchange | None = None,
) -> McpConfig:
    """The servers of `--mcp-config` values, each a JSON string or the path of a JSON file
    holding `{"mcpServers": {...}}` (later values win). `exchange` reaches the servers of an
    SDK client (`"type": "sdk"`). A file that cannot be read is a `ConfigError` (the user
    named it); a server that cannot be used is a problem, like any configured one."""
    found: dict[str, ServerConfig] = {}
    problems: list[str] = []
    for value in values:
        label = "--mcp-config"
        text = value.strip()
        if not text.startswith("{"):
            path = (workspace / text).expanduser()
            label = str(path)
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as e:
                raise ConfigError(f"--mcp-config {value}: cannot read it: {e}") from None
        try:
            data = bounded_json.loads(text)
        except json.JSONDecodeError as e:
            problem = bounded_json.error_text(e)
            raise ConfigError(f"--mcp-config {label}: not valid JSON: {problem}") from None
        entries = data.get("mcpServers") if isinstance(data, dict) else None
        if not isinstance(entries, dict):
            raise ConfigError(f'--mcp-config {label}: expected {{"mcpServers": {{...}}}}')
        usable, unusable = client_servers(
            cast(dict[str, object], entries), label, workspace, env, problems, exchange
        )
        found.update(usable)
        problems.extend(f"{label}: server {name!r}: {why}" for name, why in unusable.items())
    return McpConfig(tuple(found[n] for n in sorted(found)), tuple(problems))


def client_servers(
    entries: Mapping[str, object],
    label: str,
    workspace: Path,
    env: Mapping[str, str],
    problems: list[str],
    exchange: JsonRpcExchange | None = None,
) -> tuple[dict[str, ServerConfig], dict[str, str]]:
    """Servers the user or the SDK client gives by name (`--mcp-config`, `mcp_set_servers`):
    those that can be used, and why each other one cannot. Unknown fields go to `problems`."""
    source = Source(Path(label), "dynamic")
    usable: dict[str, ServerConfig] = {}
    unusable: dict[str, str] = {}
    for name, entry in entries.items():
        try:
            if not usable_name(name):
                raise Unusable(NAME_RULE)
            usable[name] = server_config(
                name, entry, source, "type", workspace, env, problems, exchange
            )
        except Unusable as e:
            unusable[name] = str(e)
    return usable, unusable


def plugin_servers(
    plugins: Sequence[tuple[str, Path, Mapping[str, Any], Mapping[str, str]]],
    *,
    workspace: Path,
    env: Mapping[str, str],
) -> McpConfig:
    """The MCP servers of plugins: for each, (plugin name, the file that configures them,
    the servers by name, the plugin's variables). A server is called `plugin:<plugin>:<name>`
    (its tools `mcp__plugin_<plugin>_<name>__<tool>`, as in Claude Code) and a stdio one gets
    the plugin's variables in its environment."""
    found: list[ServerConfig] = []
    problems: list[str] = []
    for plugin, path, servers, variables in plugins:
        source = Source(path, "plugin")
        for name, entry in servers.items():
            try:
                if not usable_name(name):
                    raise Unusable(NAME_RULE)
                server = server_config(
                    f"plugin:{plugin}:{name}", entry, source, "type", workspace, env, problems
                )
            except Unusable as e:
                problems.append(f"{path}: server {name!r}: {e}")
                continue
            transport = server.transport
            if isinstance(transport, StdioTransport):
                transport = StdioTransport(
                    transport.command,
                    transport.args,
                    {**variables, **transport.env},
                    transport.cwd,
                )
                server = ServerConfig(server.name, transport, server.scope, server.source)
            found.append(server)
    return McpConfig(tuple(found), tuple(problems))


def _seed_entries(workspace: Path, problems: list[str]) -> list[tuple[str, object]]:
    path = seed_file(workspace)
    data = read_yaml_file(path)
    if data is None:
        return []
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a mapping with `servers`, not {kind_of(data)}")
    servers = cast(dict[str, Any], data).get("servers") or []
    if not isinstance(servers, list):
        raise ConfigError(f"{path}: servers must be a list, not {kind_of(servers)}")
    entries: list[tuple[str, object]] = []
    for i, item in enumerate(cast(list[object], servers)):
        name = cast(dict[str, Any], item).get("name") if isinstance(item, dict) else None
        if not isinstance(name, str):
            problems.append(f"{path}: servers[{i}] needs a name (a string)")
            continue
        if any(name == seen for seen, _ in entries):
            problems.append(f"{path}: server {name!r} is defined twice; the last one is used")
        rest = {k: v for k, v in cast(dict[str, Any], item).items() if k != "name"}
        entries.append((name, rest))
    return entries


_MCP_KEYS = ("startupTimeoutMs", "toolTimeoutMs", "maxOutputChars", "toolSearchShare")


def load_limits(settings_data: Mapping[str, Any], env: Mapping[str, str]) -> McpLimits:
    """The limits from the merged settings' `tether.mcp` object, with Claude Code's variables
    `MCP_TIMEOUT`, `MCP_TOOL_TIMEOUT` (ms) and `MAX_MCP_OUTPUT_TOKENS` winning. A bad value is
    a `ConfigError` naming the key or variable."""
    block = _mcp_block(settings_data)
    default = McpLimits()
    startup_ms = _variable(env, "MCP_TIMEOUT") or _setting(block, "startupTimeoutMs")
    call_ms = _variable(env, "MCP_TOOL_TIMEOUT") or _setting(block, "toolTimeoutMs")
    tokens = _variable(env, "MAX_MCP_OUTPUT_TOKENS", whole=True)
    chars = tokens * 4 if tokens else _setting(block, "maxOutputChars", whole=True)
    share = block.get("toolSearchShare", default.tool_search_share)
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1:
        raise ConfigError('settings key "tether.mcp.toolSearchShare" must be a number from 0 to 1')
    return McpLimits(
        startup_timeout_s=startup_ms / 1000 if startup_ms else default.startup_timeout_s,
        call_timeout_s=call_ms / 1000 if call_ms else default.call_timeout_s,
        max_output_chars=int(chars) if chars else default.max_output_chars,
        tool_search_share=float(share),
    )


def _mcp_block(settings_data: Mapping[str, Any]) -> Mapping[str, Any]:
    tether = settings_data.get("tether", {})
    if not isinstance(tether, dict):
        raise ConfigError('settings key "tether" must be an object')
    block = cast(dict[str, Any], tether).get("mcp", {})
    if not isinstance(block, dict):
        raise ConfigError('settings key "tether.mcp" must be an object')
    block = cast(dict[str, Any], block)
    for key in block:
        if key not in _MCP_KEYS:
            raise ConfigError(
                f'unknown settings key "tether.mcp.{key}" (expected {", ".join(_MCP_KEYS)})'
            )
    return block


def _variable(env: Mapping[str, str], name: str, *, whole: bool = False) -> float | None:
    """A positive number from an environment variable; None when it is unset or empty."""
    raw = env.get(name, "").strip()
    if not raw:
        return None
    try:
        number = int(raw) if whole else float(raw)
    except ValueError:
        number = 0
    most = _MOST_TOKENS if whole else _MOST_MS
    if not 1 <= number <= most:
        unit = "a whole number of tokens" if whole else "a number of milliseconds"
        raise ConfigError(
            f"environment variable {name} must be {unit} from 1 to {most:,}, not {raw!r}"
        )
    return number


_MOST_MS = 86_400_000
"""A day: a longer wait is a server that will not answer."""
_MOST_TOKENS = 25_000_000
"""As `tether.mcp.maxOutputChars` at most (100,000,000 characters, four a token)."""


def _setting(block: Mapping[str, Any], key: str, *, whole: bool = False) -> float | None:
    value = block.get(key)
    if value is None:
        return None
    allowed = int if whole else int | float
    if isinstance(value, bool) or not isinstance(value, allowed) or not 0 < value < float("inf"):
        unit = "a positive whole number" if whole else "a positive number of milliseconds"
        raise ConfigError(f'settings key "tether.mcp.{key}" must be {unit}')
    return value


DECISION_KEYS = ("enabledMcpjsonServers", "disabledMcpjsonServers", "disabledMcpServers")
"""Claude Code's keys for the decisions about servers: approving or rejecting a repository's
(`.mcp.json`) servers, turning any other off for the project (`/mcp disable`)."""


def claude_decisions(
    workspace: Path, *, home: Path, env: Mapping[str, str], problems: list[str]
) -> dict[str, list[str]]:
    """The decisions Claude Code keeps in the project's entry of `~/.claude.json` (its `/mcp`,
    its approvals), which tether only reads; a value that is not a list of names is told in
    `problems` and left out (a broken file is told by `load_servers`)."""
    path = claude_file(home, env)
    try:
        entry = project_entry(path, str(workspace))
    except ConfigError:
        return {}
    found: dict[str, list[str]] = {}
    for key in DECISION_KEYS:
        if key not in entry:
            continue
        try:
            found[key] = _names(entry, key)
        except ConfigError:
            problems.append(
                f'{path} (projects[{str(workspace)!r}]): "{key}" must be a list of server names'
            )
    return found


def with_decisions(
    settings_data: Mapping[str, Any], decisions: Mapping[str, list[str]]
) -> dict[str, Any]:
    """The settings with `decisions` (`claude_decisions`) added to their lists of names."""
    merged = dict(settings_data)
    for key, names in decisions.items():
        held = _names(settings_data, key)
        merged[key] = [*held, *(n for n in names if n not in held)]
    return merged


def is_project_server_enabled(name: str, settings_data: Mapping[str, Any]) -> bool | None:
    """Whether a project (`.mcp.json`) server was approved (True), rejected (False), or not
    decided yet (None), by Claude Code's settings keys. A rejection wins, as in Claude Code."""
    if name in _names(settings_data, "disabledMcpjsonServers"):
        return False
    enable_all = settings_data.get("enableAllProjectMcpServers", False)
    if not isinstance(enable_all, bool):
        raise ConfigError('settings key "enableAllProjectMcpServers" must be true or false')
    if enable_all or name in _names(settings_data, "enabledMcpjsonServers"):
        return True
    return None


def is_server_turned_off(name: str, settings_data: Mapping[str, Any]) -> bool:
    """Whether a server other than the repository's was turned off for the project
    (`/mcp disable`): Claude Code's `disabledMcpServers`."""
    return name in _names(settings_data, "disabledMcpServers")


def project_servers_needing_approval(
    config: McpConfig, settings_data: Mapping[str, Any]
) -> list[str]:
    """The repository's servers (`.mcp.json` and the seed's YAML, approved alike) nobody has
    approved or rejected yet, by name."""
    return [
        s.name
        for s in config.servers
        if s.scope in ("project", "seed")
        and is_project_server_enabled(s.name, settings_data) is None
    ]


def _names(settings_data: Mapping[str, Any], key: str) -> list[str]:
    value = settings_data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in cast(list[Any], value)):
        raise ConfigError(f'settings key "{key}" must be a list of server names')
    return cast(list[str], value)
