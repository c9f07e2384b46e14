"""Claude Code plugins: manifests, marketplaces and what each plugin contributes."""

from tether.plugins.loading import INLINE, LoadedPlugins, load_plugins
from tether.plugins.manifest import (
    PLUGIN_DATA_VARIABLE,
    PLUGIN_ROOT_VARIABLE,
    Plugin,
    expand_plugin_variables,
    read_plugin,
)

__all__ = [
    "INLINE",
    "PLUGIN_DATA_VARIABLE",
    "PLUGIN_ROOT_VARIABLE",
    "LoadedPlugins",
    "Plugin",
    "expand_plugin_variables",
    "load_plugins",
    "read_plugin",
]
