"""The parts of a workspace plugin that a session enabling it runs or obeys, and what its
manifest and a marketplace beside it name elsewhere (`start_sweep.py`'s)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tether.sandbox.nofollow import read_regular_file

PLUGIN_PARTS = frozenset(
    {".claude-plugin", "hooks", "skills", "agents", "commands", ".mcp.json", ".lsp.json"}
    | {"output-styles", "settings.json"}
)
"""What in a plugin's directory a session that enables it runs or obeys: its manifest, hooks,
skills (`allowed-tools`), agents, commands, MCP and LSP servers."""


def declared(directory: Path) -> list[str]:
    """What a plugin's manifest names as its parts elsewhere than the usual places, and the
    plugins a marketplace in it lists by relative path (whole; its own directory's parts when
    it lists itself): relative."""
    found: list[str] = []
    manifest = _json(directory / ".claude-plugin" / "plugin.json")
    for key in ("commands", "agents", "skills", "hooks", "mcpServers", "lspServers"):
        value = manifest.get(key) if isinstance(manifest, dict) else None
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and (relative := _relative(item)) is not None:
                found.append(relative)
    market = _json(directory / ".claude-plugin" / "marketplace.json")
    plugins = market.get("plugins") if isinstance(market, dict) else None
    metadata = market.get("metadata") if isinstance(market, dict) else None
    plugin_root = metadata.get("pluginRoot") if isinstance(metadata, dict) else None
    for plugin in plugins if isinstance(plugins, list) else []:
        source = plugin.get("source") if isinstance(plugin, dict) else None
        if not isinstance(source, str):
            continue
        if isinstance(plugin_root, str) and not source.startswith(("./", "../")):
            source = f"{plugin_root.rstrip('/')}/{source}"
        relative = _relative(source)
        if relative == ".":
            found += sorted(PLUGIN_PARTS)
        elif relative is not None:
            found.append(relative)
    return found


def _relative(text: str) -> str | None:
    """A path a manifest gives, relative to its plugin's directory and staying in it."""
    path = os.path.normpath(text.strip())
    if os.path.isabs(path) or path == ".." or path.startswith("../") or "${" in text:
        return None
    return path


def _json(path: Path) -> object:
    raw = read_regular_file(path, 1 << 20)
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None
