"""The user's decisions about the repository's MCP servers (`.mcp.json`, the seed's YAML),
kept in the user's own store for the workspace (`tether.config.trust.remembered_settings`):
`enabledMcpjsonServers` and `disabledMcpjsonServers`, Claude Code's keys. A server is in one
list at most, the last decision's (a rejection wins when both hold it)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

ENABLED_KEY = "enabledMcpjsonServers"
DISABLED_KEY = "disabledMcpjsonServers"


def decide_servers(
    path: Path, *, enabled: Iterable[str] = (), disabled: Iterable[str] = ()
) -> None:
    """Keep these decisions in the settings file at `path`, each server taken out of the
    other list; `ConfigError` when the file cannot be read as a JSON object."""
    from tether.cli.permissions_edit import update_settings  # the one settings writer

    yes, no = list(enabled), list(disabled)

    def change(data: dict[str, Any]) -> None:
        for key, added, other in ((ENABLED_KEY, yes, no), (DISABLED_KEY, no, yes)):
            held = data.get(key)
            names = [n for n in held if isinstance(n, str)] if isinstance(held, list) else []  # pyright: ignore[reportUnknownVariableType]
            kept = [n for n in names if n not in other]
            kept += [n for n in added if n not in kept]
            if kept or key in data:
                data[key] = kept

    update_settings(path, change)
