"""One configured MCP server's entry, as written in any of its files, made a `ServerConfig`:
its name, its `type` (or the seed's `transport`), the fields each transport takes, and
`${VAR}` expansion; an entry that cannot be used is an `Unusable` saying why."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, cast

from tether.mcp.config_files import kind_of
from tether.mcp.servers import (
    ClientTransport,
    HttpTransport,
    JsonRpcExchange,
    Scope,
    ServerConfig,
    StdioTransport,
)
from tether.slotted import Slotted

MAX_NAME_CHARS = 200
NAME_RULE = f"a name must be printable text, not blank, of at most {MAX_NAME_CHARS} characters"


def usable_name(name: str) -> bool:
    """Whether a configured server's name can be used, as Claude Code uses any (`my.server x`,
    from an SDK program): its tools' names are made valid for the model (`mcp.names`)."""
    return bool(name.strip()) and name.isprintable() and len(name) <= MAX_NAME_CHARS


TYPES = {"stdio": "stdio", "http": "http", "streamable-http": "http", "sse": "sse"}
"""A server's `type` as written, and the transport it means."""
CLIENT_TYPES = {**TYPES, "sdk": "sdk"}
"""With `sdk` too: a server in the SDK client that drives tether (only from `--mcp-config`)."""

_FIELDS = {"stdio": ("command", "args", "env", "cwd"), "http": ("url", "headers"), "sdk": ("name",)}
_VARIABLE = re.compile(r"\$\{([^}]+)\}")


class Unusable(Exception):
    """A server entry that cannot be used; the message says why."""


class Source(Slotted):
    """Where an entry was read: its file, its scope, and how messages name the place."""

    __slots__ = ("path", "project", "scope")
    path: Final[Path]
    scope: Final[Scope]
    project: Final[str | None]
    """Set for `~/.claude.json`'s local scope: the key of the workspace in its `projects`."""

    def __init__(self, path: Path, scope: Scope, project: str | None = None) -> None:
        self.path = path
        self.scope = scope
        self.project = project

    @property
    def label(self) -> str:
        """How messages name the place."""
        return f"{self.path} (projects[{self.project!r}])" if self.project else str(self.path)


def server_config(
    name: str,
    entry: object,
    source: Source,
    type_key: str,
    workspace: Path,
    env: Mapping[str, str],
    problems: list[str],
    exchange: JsonRpcExchange | None = None,
) -> ServerConfig:
    """The server `entry` configures under `name`; the transport is read from `type_key`
    (`type`, or the seed's `transport`). An unknown field goes to `problems` and is ignored;
    an entry that cannot be used raises `Unusable`. `exchange` reaches an SDK client's own
    servers (`"type": "sdk"`, only from a `dynamic` source)."""
    if not isinstance(entry, dict):
        raise Unusable(f"must be an object, not {kind_of(entry)}")
    entry = cast(dict[str, Any], entry)
    written = entry.get(type_key, "stdio" if "command" in entry or "url" not in entry else "http")
    types = TYPES if source.scope != "dynamic" else CLIENT_TYPES
    kind = types.get(written) if isinstance(written, str) else None
    if kind is None:
        raise Unusable(f"unknown {type_key} {written!r} (expected {', '.join(types)})")
    fields = _FIELDS[kind if kind in ("stdio", "sdk") else "http"]
    for key in entry:
        if key != type_key and key not in fields:
            expected = ", ".join((type_key, *fields))
            problems.append(
                f"{source.label}: server {name!r}: unknown field {key!r} ignored "
                f"(expected {expected})"
            )
    expand = _Expander(env)
    if kind == "sdk":
        if exchange is None:
            raise Unusable("an sdk server is served by an SDK client (--input-format stream-json)")
        return ServerConfig(name, ClientTransport(exchange), source.scope, source.path)
    if kind == "stdio":
        command = expand(_text(entry, "command"), "command")
        args = tuple(expand(a, f"args[{i}]") for i, a in enumerate(_strings(entry, "args")))
        variables = {k: expand(v, f"env.{k}") for k, v in _string_map(entry, "env").items()}
        cwd = entry.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise Unusable(f"cwd must be a string, not {kind_of(cwd)}")
        folder = workspace / expand(cwd, "cwd") if cwd else None  # relative to the project
        expand.check()
        transport = StdioTransport(command, args, variables, folder)
    else:
        url = expand(_text(entry, "url"), "url")
        headers = {k: expand(v, f"headers.{k}") for k, v in _string_map(entry, "headers").items()}
        expand.check()
        if not url.startswith(("http://", "https://")):
            raise Unusable(f"url must start with http:// or https://, not {url!r}")
        transport = HttpTransport(url, headers, "sse" if kind == "sse" else "http")
    return ServerConfig(name, transport, source.scope, source.path)


def _text(entry: Mapping[str, Any], key: str) -> str:
    value = entry.get(key)
    if value is None:
        raise Unusable(f"missing {key!r}")
    if not isinstance(value, str):
        raise Unusable(f"{key} must be a string, not {kind_of(value)}")
    if not value.strip():
        raise Unusable(f"{key} is empty")
    return value


def _strings(entry: Mapping[str, Any], key: str) -> list[str]:
    value = entry.get(key, [])
    if not isinstance(value, list):
        raise Unusable(f"{key} must be a list of strings, not {kind_of(value)}")
    for i, item in enumerate(cast(list[object], value)):
        if not isinstance(item, str):
            raise Unusable(f"{key} must be a list of strings ({key}[{i}] is {kind_of(item)})")
    return cast(list[str], value)


def _string_map(entry: Mapping[str, Any], key: str) -> dict[str, str]:
    value = entry.get(key, {})
    if not isinstance(value, dict):
        raise Unusable(f"{key} must be an object of strings, not {kind_of(value)}")
    for k, v in cast(dict[str, object], value).items():
        if not isinstance(v, str):
            raise Unusable(f"{key} must be an object of strings ({key}.{k} is {kind_of(v)})")
    return cast(dict[str, str], value)


class _Expander:
    """`${VAR}` and `${VAR:-default}`, as Claude Code expands them: a default is used only when
    the variable is unset. Variables that are unset without a default are collected, so that
    one message names them all."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self.missing: list[str] = []

    def __call__(self, text: str, where: str) -> str:
        def one(match: re.Match[str]) -> str:
            variable, has_default, default = match.group(1).partition(":-")
            if variable in self.env:
                return self.env[variable]
            if has_default:
                return default
            self.missing.append(f"${{{variable}}} (in {where})")
            return match.group(0)

        return _VARIABLE.sub(one, text)

    def check(self) -> None:
        if self.missing:
            raise Unusable(
                f"environment variable not set and no default given: {', '.join(self.missing)}"
            )
