"""One plugin directory as Claude Code reads it: `.claude-plugin/plugin.json` (optional) and
its components in their default places or where the manifest says.

    my-plugin/
      .claude-plugin/plugin.json   {"name", "version", "description", "author", and optionally
                                    "commands", "agents", "skills", "hooks", "mcpServers"}
      commands/*.md  agents/*.md  skills/<name>/SKILL.md  hooks/hooks.json  .mcp.json

Paths the manifest gives for `commands`, `agents` and `skills` add to the default directories;
`hooks` and `mcpServers` are a file, a list of files, or the configuration inline. Reading is
lenient: what is broken is a warning naming the file, and the rest of the plugin still loads
(a manifest that is not JSON loses the whole plugin: nothing in it can be trusted to mean
what it says).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from tether.text_files import real_path

MANIFEST = Path(".claude-plugin") / "plugin.json"
PLUGIN_ROOT_VARIABLE = "CLAUDE_PLUGIN_ROOT"
PLUGIN_DATA_VARIABLE = "CLAUDE_PLUGIN_DATA"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
"""What a plugin name must be to namespace commands, agents and skills (`name:command`)."""
_COMPONENT_DIRS = ("commands", "agents", "skills")


@dataclass(frozen=True)
class Plugin:
    """A plugin ready to contribute its components to a session."""

    name: str
    marketplace: str
    """The marketplace it was enabled from; `inline` for `--plugin-dir`, as in Claude Code."""
    root: Path
    data_dir: Path
    """Where it may keep state (`${CLAUDE_PLUGIN_DATA}`): created when a hook first runs."""
    version: str | None = None
    description: str = ""
    commands: tuple[Path, ...] = ()
    """Directories of `*.md` commands, or single command files."""
    agents: tuple[Path, ...] = ()
    """Directories of `*.md` agent files, or single agent files."""
    skills: tuple[Path, ...] = ()
    """Directories holding skill directories, or skill directories themselves."""
    hooks: tuple[tuple[Path, Mapping[str, Any]], ...] = ()
    """Each hooks configuration with the file it came from: `{"PreToolUse": [...], ...}`."""
    mcp_servers: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: {})
    """Its MCP servers by their own names, `${CLAUDE_PLUGIN_ROOT}` already expanded."""
    mcp_source: Path | None = None

    @property
    def plugin_id(self) -> str:
        """`name@marketplace`, as `enabledPlugins` names it."""
        return f"{self.name}@{self.marketplace}"

    def variables(self) -> dict[str, str]:
        """The variables its hooks and MCP servers get and may name as `${...}`."""
        return {PLUGIN_ROOT_VARIABLE: str(self.root), PLUGIN_DATA_VARIABLE: str(self.data_dir)}


def read_plugin(
    root: Path,
    *,
    marketplace: str,
    data_home: Path,
    entry: Mapping[str, Any] | None = None,
    warnings: list[str],
) -> Plugin | None:
    """The plugin at `root`, or None (with a warning) when it cannot be used at all. `entry`:
    the marketplace's entry for it, which stands in for a missing manifest (Claude Code's
    `strict: false`) and whose component fields add to the manifest's."""
    if not root.is_dir():
        warnings.append(f"plugin {root}: not a directory")
        return None
    manifest_path = root / MANIFEST
    manifest: dict[str, Any] = {}
    if manifest_path.is_file():
        try:
            loaded = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            warnings.append(f"plugin manifest {manifest_path}: not readable JSON ({exc}); skipped")
            return None
        if not isinstance(loaded, dict):
            warnings.append(f"plugin manifest {manifest_path}: must be a JSON object; skipped")
            return None
        manifest = cast(dict[str, Any], loaded)
    where = manifest_path if manifest else root
    name = manifest.get("name", (entry or {}).get("name", root.name))
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        warnings.append(
            f"plugin {where}: the name {name!r} cannot name commands and agents (letters, "
            "digits, '.', '-' and '_'); skipped"
        )
        return None
    version = manifest.get("version", (entry or {}).get("version"))
    description = manifest.get("description", (entry or {}).get("description", ""))
    plugin = Plugin(
        name=name,
        marketplace=marketplace,
        root=root,
        data_dir=data_home / f"{_safe(name)}-{_safe(marketplace)}",
        version=version if isinstance(version, str) else None,
        description=description if isinstance(description, str) else "",
    )
    reader = _Reader(plugin, where, warnings)
    fields: dict[str, Any] = {
        kind: reader.component_paths(kind, [manifest.get(kind), (entry or {}).get(kind)])
        for kind in _COMPONENT_DIRS
    }
    fields["hooks"] = reader.hooks([manifest.get("hooks"), (entry or {}).get("hooks")])
    servers, source = reader.mcp_servers(
        [manifest.get("mcpServers"), (entry or {}).get("mcpServers")]
    )
    return replace(plugin, **fields, mcp_servers=servers, mcp_source=source)


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "-", text)


def expand_plugin_variables(value: Any, variables: Mapping[str, str]) -> Any:
    """`${CLAUDE_PLUGIN_ROOT}` and `${CLAUDE_PLUGIN_DATA}` replaced in every string of a JSON
    value (other `${VAR}`s are left for the reader of the value: MCP's own expansion)."""
    if isinstance(value, str):
        for name, replacement in variables.items():
            value = value.replace("${" + name + "}", replacement)
        return value
    if isinstance(value, list):
        return [expand_plugin_variables(item, variables) for item in cast(list[Any], value)]
    if isinstance(value, dict):
        return {
            key: expand_plugin_variables(item, variables)
            for key, item in cast(dict[str, Any], value).items()
        }
    return value


@dataclass
class _Reader:
    plugin: Plugin
    where: Path
    warnings: list[str]

    def component_paths(self, kind: str, given: list[Any]) -> tuple[Path, ...]:
        """The default directory when present, then each path the manifest adds."""
        paths: list[Path] = []
        default = self.plugin.root / kind
        if default.is_dir():
            paths.append(default)
        for value in given:
            for relative in self._strings(kind, value):
                path = self._inside(kind, relative)
                if path is None:
                    continue
                if not path.exists():
                    self.warnings.append(f"plugin {self.where}: {kind}: {relative} does not exist")
                elif path not in paths:
                    paths.append(path)
        return tuple(paths)

    def hooks(self, given: list[Any]) -> tuple[tuple[Path, Mapping[str, Any]], ...]:
        found: list[tuple[Path, Mapping[str, Any]]] = []
        default = self.plugin.root / "hooks" / "hooks.json"
        files = [default] if default.is_file() else []
        for value in given:
            if isinstance(value, dict):
                found.append(
                    (self.where, self._hooks_block(self.where, cast(dict[str, Any], value)))
                )
                continue
            for relative in self._strings("hooks", value):
                path = self._inside("hooks", relative)
                if path is not None and path not in files:
                    files.append(path)
        for path in files:
            data = self._json_file(path)
            if data is not None:
                found.append((path, self._hooks_block(path, data)))
        return tuple((path, block) for path, block in found if block)

    def mcp_servers(self, given: list[Any]) -> tuple[dict[str, Mapping[str, Any]], Path | None]:
        blocks: list[tuple[Path, dict[str, Any]]] = []
        default = self.plugin.root / ".mcp.json"
        files = [default] if default.is_file() else []
        for value in given:
            if isinstance(value, dict):
                blocks.append((self.where, cast(dict[str, Any], value)))
                continue
            for relative in self._strings("mcpServers", value):
                path = self._inside("mcpServers", relative)
                if path is not None and path not in files:
                    files.append(path)
        for path in files:
            data = self._json_file(path)
            if data is not None:
                blocks.append((path, data))
        servers: dict[str, Mapping[str, Any]] = {}
        source: Path | None = None
        for path, data in blocks:
            table = data.get("mcpServers", data)
            if not isinstance(table, dict):
                self.warnings.append(f"plugin {path}: mcpServers must be an object of servers")
                continue
            for name, config in cast(dict[str, Any], table).items():
                if not isinstance(config, dict):
                    self.warnings.append(f"plugin {path}: MCP server {name!r} must be an object")
                    continue
                servers[name] = expand_plugin_variables(config, self.plugin.variables())
                source = source or path
        return servers, source

    def _hooks_block(self, path: Path, data: dict[str, Any]) -> dict[str, Any]:
        """`{"description": ..., "hooks": {...}}` (hooks.json) or the events object itself."""
        block = data.get("hooks", data)
        if not isinstance(block, dict):
            self.warnings.append(f'plugin hooks {path}: "hooks" must be an object of events')
            return {}
        block = {k: v for k, v in cast(dict[str, Any], block).items() if k != "description"}
        return cast(dict[str, Any], expand_plugin_variables(block, self.plugin.variables()))

    def _json_file(self, path: Path) -> dict[str, Any] | None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            self.warnings.append(f"plugin file {path}: not readable JSON ({exc}); ignored")
            return None
        if not isinstance(data, dict):
            self.warnings.append(f"plugin file {path}: must be a JSON object; ignored")
            return None
        return cast(dict[str, Any], data)

    def _strings(self, kind: str, value: Any) -> list[str]:
        if value is None:
            return []
        items = cast(list[Any], value) if isinstance(value, list) else [value]
        if not all(isinstance(item, str) for item in items):
            self.warnings.append(f"plugin {self.where}: {kind} must be a path or a list of paths")
            return []
        return cast(list[str], items)

    def _inside(self, kind: str, relative: str) -> Path | None:
        """A manifest path, which must stay inside the plugin (Claude Code's `./` paths)."""
        path = real_path(self.plugin.root / relative)
        root = real_path(self.plugin.root)
        if path != root and root not in path.parents:
            self.warnings.append(
                f"plugin {self.where}: {kind}: {relative} is outside the plugin; ignored"
            )
            return None
        return path
