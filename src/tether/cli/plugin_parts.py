"""The session's plugins (`tether.plugins`) as what each service reads: skill, agent and
command directories named by their plugin, hook specs with the plugin's variables, and MCP
servers. Plugins come from `--plugin-dir` and from `enabledPlugins` in settings files the
session reads (an untrusted workspace's own settings enable none: `restrict_settings` keeps
no `enabledPlugins` of theirs)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Final

from tether.config.settings import Settings
from tether.hooks.config import read_plugin_hooks
from tether.hooks.spec import HookSpec
from tether.mcp.config import McpConfig, plugin_servers
from tether.slotted import Slotted

if TYPE_CHECKING:  # the plugins' reader loads only for a session that names plugins
    from tether.plugins import Plugin

PLUGIN_SETTINGS = ("enabledPlugins", "extraKnownMarketplaces")
"""The settings that name plugins or where they come from: a session whose settings have
neither, and no `--plugin-dir`, has no plugins and nothing to be warned of about them."""


class SessionPlugins(Slotted):
    __slots__ = ("notices", "plugins")
    plugins: Final[tuple[Plugin, ...]]
    notices: Final[tuple[str, ...]]

    def __init__(self, plugins: tuple[Plugin, ...] = (), notices: tuple[str, ...] = ()) -> None:
        self.plugins = plugins
        self.notices = notices

    def skills(self) -> list[tuple[str, Path, Path]]:
        return [(p.name, p.root, path) for p in self.plugins for path in p.skills]

    def agents(self) -> list[tuple[str, Path]]:
        return [(p.name, path) for p in self.plugins for path in p.agents]

    def commands(self) -> list[tuple[str, Path, Path]]:
        return [(p.name, p.root, path) for p in self.plugins for path in p.commands]

    def hooks(self) -> tuple[tuple[HookSpec, ...], tuple[str, ...]]:
        """Their hooks, and the notes on those that do not run."""
        specs: list[HookSpec] = []
        notes: list[str] = []
        for plugin in self.plugins:
            for path, block in plugin.hooks:
                read = read_plugin_hooks(
                    path, block, plugin=plugin.plugin_id, env=plugin.variables()
                )
                specs.extend(read.specs)
                notes.extend(read.skipped)
        return tuple(specs), tuple(notes)

    def mcp(self, workspace: Path, env: dict[str, str]) -> McpConfig:
        return plugin_servers(
            [
                (p.name, p.mcp_source, p.mcp_servers, p.variables())
                for p in self.plugins
                if p.mcp_source is not None
            ],
            workspace=workspace,
            env=env,
        )

    def described(self) -> list[dict[str, str]]:
        """As Claude Code's `init` line lists them."""
        return [
            {
                "name": p.name,
                "path": str(p.root),
                "source": p.plugin_id,
                **({"version": p.version} if p.version else {}),
            }
            for p in self.plugins
        ]


def session_plugins(
    settings: Settings, plugin_dirs: Sequence[Path], *, user_home: Path, tether_home: Path
) -> SessionPlugins:
    if not plugin_dirs and not any(
        k in data for _, data in settings.layers for k in PLUGIN_SETTINGS
    ):
        return SessionPlugins()
    from tether.plugins import load_plugins

    loaded = load_plugins(
        settings.layers,
        plugin_dirs=plugin_dirs,
        claude_home=user_home / ".claude",
        data_home=tether_home / "plugins" / "data",
    )
    notices = list(loaded.warnings)
    for plugin in loaded.plugins:
        try:
            plugin.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            notices.append(f"plugin {plugin.plugin_id}: cannot make its data directory: {exc}")
    return SessionPlugins(loaded.plugins, tuple(f"plugins: {n}" for n in notices))
