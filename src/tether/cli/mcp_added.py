"""A server added by `tether mcp add` or `tether mcp add-json` written to its scope's file, and
the entry `add-json` takes (Claude Code's `claude mcp add-json NAME JSON`, JSON given inline or
`-` for stdin): checked as a session reads it before anything is written."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from tether.cli.terminal_text import terminal_safe
from tether.config.local_files import ignore_local_files
from tether.mcp.config import SERVER_NAME
from tether.mcp.config_files import WritableScope, add_server, kind_of
from tether.mcp.entries import TYPES, Source, Unusable, server_config
from tether.protocol import ConfigError

_UNSET = "environment variable not set"
"""How `server_config` begins the one refusal that is no mistake in the entry: a `${VAR}`
the session that starts it may well have."""


def save_server(
    path: Path, scope: WritableScope, name: str, entry: Mapping[str, Any], transport: str
) -> None:
    """Write the server to `path` (the file of `scope`) and say so."""
    add_server(path, name, entry)
    if scope == "local":  # this machine's file (it may hold keys): out of git, as sessions do
        ignore_local_files(path.parent)
    print(f"Added {transport} MCP server {name!r} to the {scope} scope: {path}")
    if scope == "project":
        print("tether asks before it starts a project server for the first time.")


def add_json(
    path: Path,
    scope: WritableScope,
    name: str,
    given: str,
    *,
    workspace: Path,
    env: Mapping[str, str],
) -> None:
    """Add the server `given` (a JSON object, or "-": read from stdin) configures under
    `name`. Raises `ConfigError` saying what is wrong, with nothing written."""
    if not SERVER_NAME.fullmatch(name):
        raise ConfigError(f"bad server name {name!r}: use letters, digits, '_', '-' and '.'")
    text = sys.stdin.read() if given == "-" else given
    try:
        entry = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"the server's JSON is not valid JSON: {e}") from None
    if not isinstance(entry, dict):
        raise ConfigError(f"the server's JSON must be an object, not {kind_of(entry)}")
    entry = cast(dict[str, Any], entry)
    problems: list[str] = []
    try:
        server_config(name, entry, Source(path, scope), "type", workspace, env, problems)
    except Unusable as e:
        if not str(e).startswith(_UNSET):
            raise ConfigError(f"server {name!r}: {e}") from None
        problems.append(f"{e}: set it before a session starts the server")
    for problem in problems:
        print(f"note: {terminal_safe(problem)}", file=sys.stderr)
    # As a session reads it (valid by now): a `command` without a type is stdio.
    written = entry.get("type", "stdio" if "command" in entry or "url" not in entry else "http")
    save_server(path, scope, name, entry, TYPES[written])
