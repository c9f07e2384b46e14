"""The plugin directories inside a project: code a later session runs, unsandboxed, once the
plugin is enabled (its hooks, MCP servers, skills' allowed tools, agents, commands, and any
script those name through `${CLAUDE_PLUGIN_ROOT}`). One finder the permission engine asks
before a write and the sandbox may use to keep them read-only.

A plugin is found on disk, from the path being written up to the project root: a directory
holding `.claude-plugin/plugin.json` is a plugin (all of it), and a directory holding
`.claude-plugin/marketplace.json` is a marketplace whose entries' local `source` paths
(under `metadata.pluginRoot`) are plugins, with a manifest or not, made yet or not. The
`.claude-plugin` directory itself is in the project table (`tether.project_files`).

At the bottom layer, beside `project_files`, so that every layer can use it.
"""

from __future__ import annotations

import json
import os
from pathlib import PurePosixPath
from typing import Any, cast

MANIFEST_DIR = ".claude-plugin"
PLUGIN_FILE = "plugin.json"
MARKETPLACE_FILE = "marketplace.json"
PLUGIN_WHY = "a plugin's hooks, MCP servers, skills, agents and commands: code a later session runs"

_MAX_MARKETPLACE_BYTES = 1 << 20
_sources: dict[str, tuple[tuple[int, int], tuple[str, ...]]] = {}
"""Marketplace file -> ((mtime_ns, size), its plugins' directories), read again on change."""


def plugin_place(path: str, root: str) -> str | None:
    """Why writing `path` (absolute, resolved, `/`-separated) below the project `root`
    changes a plugin's code, or None. Looks at the disk: a `stat` per directory between them."""
    if not path.startswith(root.rstrip("/") + "/"):
        return None
    here = PurePosixPath(path)
    top = PurePosixPath(root)
    for directory in here.parents:
        if len(directory.parts) < len(top.parts):
            break
        manifest_dir = f"{directory}/{MANIFEST_DIR}"
        if not os.path.isdir(manifest_dir):
            continue
        if os.path.isfile(f"{manifest_dir}/{PLUGIN_FILE}") and in_plugin(
            path, str(directory), root
        ):
            return PLUGIN_WHY
        market = f"{manifest_dir}/{MARKETPLACE_FILE}"
        if os.path.isfile(market):
            for plugin in _marketplace_plugins(market, str(directory)):
                if in_plugin(path, plugin, root):
                    return PLUGIN_WHY
    return None


PLUGIN_PARTS = frozenset(
    {MANIFEST_DIR, "hooks", "skills", "agents", "commands", ".mcp.json", ".lsp.json"}
    | {"output-styles", "settings.json"}
)
"""What in a plugin's directory a session that enables it runs or obeys: its manifest, hooks,
skills (`allowed-tools`), agents, commands, MCP and LSP servers, output styles, settings."""
COMPONENTS = PLUGIN_PARTS - {MANIFEST_DIR, ".mcp.json", "settings.json"}
"""A plugin's component places, by Claude Code's default layout (`.mcp.json` and
`.claude-plugin` are the project table's at any depth)."""


def marketplace_sources(table: object) -> list[str]:
    """The plugins a marketplace's JSON lists by a local path (a string `source`, or a
    `{"path": ...}` one), relative to the marketplace's directory, `/`-separated and
    normalized (they may lead out of it: `../x`). With `metadata.pluginRoot`, a source written
    `./x` or `../x` is given both ways (with and without the root prepended): the readers of the
    format differ, and both are the marketplace's to say."""
    if not isinstance(table, dict):
        return []
    data = cast(dict[str, Any], table)
    metadata = data.get("metadata")
    base = cast(dict[str, Any], metadata).get("pluginRoot") if isinstance(metadata, dict) else None
    plugins = data.get("plugins")
    found: list[str] = []
    for entry in cast(list[Any], plugins) if isinstance(plugins, list) else []:
        source = cast(dict[str, Any], entry).get("source") if isinstance(entry, dict) else None
        if isinstance(source, dict):
            source = cast(dict[str, Any], source).get("path")
        if not isinstance(source, str) or "://" in source or not source.strip():
            continue
        source = source.strip()
        if isinstance(base, str) and base.strip():
            found.append(os.path.normpath(os.path.join(base.strip(), source)))
            if not source.startswith(("./", "../")) and source not in (".", ".."):
                continue
        found.append(os.path.normpath(source))
    return list(dict.fromkeys(found))


def in_plugin(path: str, plugin: str, root: str) -> bool:
    """Whether `path` is part of the plugin in directory `plugin`: anything in it, but for a
    project that is itself the plugin (plugin development at the root), its component places
    only (the rest is the project's own code, written all the time)."""
    if path != plugin and not path.startswith(plugin.rstrip("/") + "/"):
        return False
    if plugin.rstrip("/") != root.rstrip("/"):
        return True
    rest = path[len(plugin.rstrip("/")) + 1 :]
    return rest.split("/", 1)[0] in COMPONENTS


def _marketplace_plugins(market: str, root: str) -> tuple[str, ...]:
    """The directories (absolute, normalized) of a marketplace's plugins given by path."""
    try:
        info = os.stat(market)
    except OSError:
        return ()
    key = (info.st_mtime_ns, info.st_size)
    kept = _sources.get(market)
    if kept is not None and kept[0] == key:
        return kept[1]
    found: list[str] = []
    data: Any = None
    if info.st_size <= _MAX_MARKETPLACE_BYTES:
        try:
            with open(market, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, UnicodeDecodeError, ValueError):
            data = None
    for source in marketplace_sources(data):
        found.append(os.path.normpath(os.path.join(root, source)))
    result = tuple(found)
    _sources[market] = (key, result)
    return result
