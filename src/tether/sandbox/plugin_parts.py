"""What a workspace plugin's manifest and a marketplace beside it name elsewhere than a
plugin's usual parts (`start_sweep.py`'s). The parts and the marketplace's format are
`tether.plugin_places`' (one reading, the permission engine's too)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tether.plugin_places import PLUGIN_PARTS, marketplace_sources
from tether.sandbox.nofollow import read_regular_file

__all__ = ["PLUGIN_PARTS", "declared"]


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
    for source in marketplace_sources(market):
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
