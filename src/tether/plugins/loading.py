"""Which plugins a session loads: `--plugin-dir` directories, and the plugins `enabledPlugins`
turns on (`"name@marketplace": true`) found through their marketplace.

A marketplace is found, in this order, in `extraKnownMarketplaces` of the settings (a
`directory` source: a local directory holding `.claude-plugin/marketplace.json`), then in
Claude Code's own record of the marketplaces it added (`~/.claude/plugins/
known_marketplaces.json`). A plugin Claude Code installed (`installed_plugins.json`) is
loaded from Claude Code's copy; otherwise from the marketplace's entry, whose `source` is a
path inside the marketplace. tether downloads nothing: a plugin only on GitHub or a git URL
that Claude Code has not fetched is a warning saying so.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from tether.plugins.manifest import Plugin, read_plugin
from tether.relocated_files import file_name
from tether.text_files import real_path

MARKETPLACE_FILE = Path(".claude-plugin") / "marketplace.json"
INLINE = "inline"
"""The marketplace of a plugin given with `--plugin-dir`, as Claude Code names it."""


@dataclass(frozen=True)
class LoadedPlugins:
    plugins: tuple[Plugin, ...] = ()
    warnings: tuple[str, ...] = ()


def load_plugins(
    layers: Sequence[tuple[Path, Mapping[str, Any]]],
    *,
    plugin_dirs: Sequence[Path] = (),
    claude_home: Path,
    data_home: Path,
) -> LoadedPlugins:
    """The plugins of `--plugin-dir` (`plugin_dirs`), then those the settings `layers`
    (lowest precedence first) enable. `claude_home` is `~/.claude` (Claude Code's records of
    marketplaces and installed plugins); `data_home` holds each plugin's data directory. Two
    plugins of the same name: the first wins, the other is a warning."""
    warnings: list[str] = []
    plugins: list[Plugin] = []
    for directory in plugin_dirs:
        plugin = read_plugin(
            directory.expanduser().resolve(),
            marketplace=INLINE,
            data_home=data_home,
            warnings=warnings,
        )
        if plugin is not None:
            plugins.append(plugin)
    enabled, marketplaces = _settings(layers, warnings)
    finder = _Finder(marketplaces, claude_home, data_home, warnings)
    for plugin_id in enabled:
        plugin = finder.plugin(plugin_id)
        if plugin is not None:
            plugins.append(plugin)
    chosen: dict[str, Plugin] = {}
    for plugin in plugins:
        winner = chosen.setdefault(plugin.name, plugin)
        if winner is not plugin:
            warnings.append(
                f"plugin {plugin.plugin_id} ({plugin.root}) has the name of {winner.plugin_id} "
                f"({winner.root}), which is loaded; this one is not"
            )
    return LoadedPlugins(tuple(chosen.values()), tuple(warnings))


def _settings(
    layers: Sequence[tuple[Path, Mapping[str, Any]]], warnings: list[str]
) -> tuple[list[str], dict[str, tuple[Path, Mapping[str, Any]]]]:
    """The enabled plugin ids (a later layer's `false` turns off an earlier `true`) and the
    marketplaces declared, each with the settings file that declared it."""
    enabled: dict[str, bool] = {}
    marketplaces: dict[str, tuple[Path, Mapping[str, Any]]] = {}
    for path, data in layers:
        warnings.extend(setting_warnings(path, data))
        table = data.get("enabledPlugins")
        if isinstance(table, dict):
            for plugin_id, on in cast(dict[str, Any], table).items():
                if isinstance(on, bool):
                    enabled[plugin_id] = on
        known = data.get("extraKnownMarketplaces")
        if isinstance(known, dict):
            for name, entry in cast(dict[str, Any], known).items():
                if isinstance(entry, dict):
                    marketplaces[name] = (path, cast(dict[str, Any], entry))
    return [plugin_id for plugin_id, on in enabled.items() if on], marketplaces


def is_plugin_id(plugin_id: str) -> bool:
    """Whether `plugin_id` is of the form `name@marketplace` (both parts there; the name
    may hold dots and `@`, the marketplace is after the last `@`)."""
    name, at, marketplace = plugin_id.rpartition("@")
    return bool(at and name and marketplace)


def setting_warnings(path: Path, data: Mapping[str, Any]) -> list[str]:
    """What start-up says of the plugin settings of one settings file whose shape is wrong
    (the entry is then left out): `enabledPlugins` an object of `name@marketplace` ids to true
    or false, `extraKnownMarketplaces` an object of objects. `/config` says the same, of a
    value it sets and of the files it lists."""
    warnings: list[str] = []
    table = data.get("enabledPlugins")
    if isinstance(table, dict):
        for plugin_id, on in cast(dict[str, Any], table).items():
            if not is_plugin_id(plugin_id):
                warnings.append(
                    f"settings file {file_name(path)}: enabledPlugins: {plugin_id!r} is not of "
                    'the form "name@marketplace"; ignored'
                )
            elif not isinstance(on, bool):
                warnings.append(
                    f"settings file {file_name(path)}: enabledPlugins.{plugin_id}: "
                    "must be true or false"
                )
    elif table is not None:
        warnings.append(f"settings file {file_name(path)}: enabledPlugins must be an object")
    known = data.get("extraKnownMarketplaces")
    if isinstance(known, dict):
        for name, entry in cast(dict[str, Any], known).items():
            if not isinstance(entry, dict):
                warnings.append(
                    f"settings file {file_name(path)}: extraKnownMarketplaces.{name}: "
                    "must be an object"
                )
    elif known is not None:
        warnings.append(
            f"settings file {file_name(path)}: extraKnownMarketplaces must be an object"
        )
    return warnings


@dataclass
class _Finder:
    declared: dict[str, tuple[Path, Mapping[str, Any]]]
    claude_home: Path
    data_home: Path
    warnings: list[str]

    def plugin(self, plugin_id: str) -> Plugin | None:
        name, _, marketplace = plugin_id.rpartition("@")
        if not is_plugin_id(plugin_id):
            return None  # `setting_warnings` has said so, of the file that names it
        installed = self._installed().get(plugin_id)
        root = self._marketplace_root(marketplace)
        entry = self._entry(root, name) if root is not None else None
        if installed is not None and installed.is_dir():
            return self._read(installed, marketplace, entry)
        if root is None:
            self.warnings.append(
                f"plugin {plugin_id}: the marketplace {marketplace!r} is not known here (add a "
                "directory source for it to extraKnownMarketplaces, or install it with Claude "
                "Code); not loaded"
            )
            return None
        if entry is None:
            return None
        source = entry.get("source")
        if not isinstance(source, str):
            self.warnings.append(
                f"plugin {plugin_id}: its source ({json.dumps(source)}) is fetched from elsewhere, "
                "which tether does not do; install it with Claude Code to use it here"
            )
            return None
        return self._read(real_path(root / self._plugin_root(root) / source), marketplace, entry)

    def _read(self, root: Path, marketplace: str, entry: Mapping[str, Any] | None) -> Plugin | None:
        return read_plugin(
            root,
            marketplace=marketplace,
            data_home=self.data_home,
            entry=entry,
            warnings=self.warnings,
        )

    def _marketplace_root(self, marketplace: str) -> Path | None:
        declared = self.declared.get(marketplace)
        if declared is not None:
            path, entry = declared
            source = entry.get("source")
            if isinstance(source, dict):
                source = cast(dict[str, Any], source)
                if source.get("source") == "directory" and isinstance(source.get("path"), str):
                    # Relative to the project (or home) whose `.claude/settings.json` says so.
                    base = (
                        path.parent.parent
                        if path.parent.name in (".claude", ".tether")
                        else path.parent
                    )
                    return real_path((base / str(source["path"])).expanduser())
        record = self._json(self.claude_home / "plugins" / "known_marketplaces.json")
        known = record.get(marketplace)
        if isinstance(known, dict):
            location = cast(dict[str, Any], known).get("installLocation")
            if isinstance(location, str) and Path(location).is_dir():
                return Path(location)
        clone = self.claude_home / "plugins" / "marketplaces" / marketplace
        return clone if clone.is_dir() else None

    def _entry(self, root: Path, name: str) -> Mapping[str, Any] | None:
        path = root / MARKETPLACE_FILE
        data = self._json(path, required=True)
        plugins = data.get("plugins")
        if not isinstance(plugins, list):
            if data:
                self.warnings.append(f'marketplace {path}: "plugins" must be a list')
            return None
        for entry in cast(list[Any], plugins):
            if isinstance(entry, dict) and cast(dict[str, Any], entry).get("name") == name:
                return cast(dict[str, Any], entry)
        self.warnings.append(f"marketplace {path}: no plugin named {name!r}; not loaded")
        return None

    def _plugin_root(self, root: Path) -> str:
        """`metadata.pluginRoot`: the directory bare plugin sources are relative to."""
        metadata = self._json(root / MARKETPLACE_FILE).get("metadata")
        base = (
            cast(dict[str, Any], metadata).get("pluginRoot") if isinstance(metadata, dict) else None
        )
        return base if isinstance(base, str) else "."

    def _installed(self) -> dict[str, Path]:
        """Claude Code's installed copies, `name@marketplace` to their directory."""
        record = self._json(self.claude_home / "plugins" / "installed_plugins.json")
        table = record.get("plugins")
        found: dict[str, Path] = {}
        if isinstance(table, dict):
            for plugin_id, installs in cast(dict[str, Any], table).items():
                for install in (
                    cast(list[Any], installs) if isinstance(installs, list) else [installs]
                ):
                    if isinstance(install, dict):
                        path = cast(dict[str, Any], install).get("installPath")
                        if isinstance(path, str):
                            found.setdefault(plugin_id, Path(path))
        return found

    def _json(self, path: Path, *, required: bool = False) -> dict[str, Any]:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            if required:
                self.warnings.append(f"marketplace {path.parent.parent}: no {MARKETPLACE_FILE}")
            return {}
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            self.warnings.append(f"{path}: not readable JSON ({exc}); ignored")
            return {}
        return cast(dict[str, Any], data) if isinstance(data, dict) else {}
