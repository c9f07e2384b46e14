"""The user's decisions about MCP servers, kept in the user's own store for the workspace
(`tether.config.trust.remembered_settings`) under Claude Code's keys.

The repository's servers (`.mcp.json`, the seed's YAML): `enabledMcpjsonServers` and
`disabledMcpjsonServers`. A server is in one list at most, the last decision's (a rejection
wins when both hold it). Every other server (the user's, a local one, a plugin's):
`disabledMcpServers`, the list Claude Code's `/mcp` keeps in the project's entry of
`~/.claude.json` (which tether only reads, `tether.mcp.config.claude_decisions`): off in this
project until `/mcp enable`. A server turned off by a file tether does not keep (a settings
file, `~/.claude.json`) stays off there: `/mcp enable` starts it for the session and says
which file keeps it off (`kept_off_elsewhere`).

`disabledMcpServers` counts only in the user's own files (`users_own_switches`): Claude Code
reads it from nowhere but the project's entry of `~/.claude.json`, which is the user's, so a
repository's settings file that lists it does not turn off the servers the user configured
for every project (it is told, and left out)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tether.cli.ownership import Ownership
    from tether.config.settings import Settings

ENABLED_KEY = "enabledMcpjsonServers"
DISABLED_KEY = "disabledMcpjsonServers"
SERVER_DISABLED_KEY = "disabledMcpServers"


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


def keep_server_off(path: Path, name: str, off: bool) -> bool:
    """Put server `name` in the settings file's `disabledMcpServers` (`off`) or take it out;
    whether the file changed. `ConfigError` when it cannot be read as a JSON object."""
    from tether.cli.permissions_edit import update_settings  # the one settings writer

    changed = False

    def change(data: dict[str, Any]) -> None:
        nonlocal changed
        held = data.get(SERVER_DISABLED_KEY)
        names = [n for n in held if isinstance(n, str)] if isinstance(held, list) else []  # pyright: ignore[reportUnknownVariableType]
        kept = [n for n in names if n != name] + ([name] if off else [])
        changed = (name in names) != off
        if changed:
            data[SERVER_DISABLED_KEY] = kept

    update_settings(path, change)
    return changed


def kept_off_elsewhere(
    layers: Sequence[tuple[Path, Mapping[str, Any]]],
    store: Path | None,
    claude: Path,
    decisions: Mapping[str, list[str]],
) -> dict[tuple[str, str], list[Path]]:
    """For each (key, server) turned off (`DISABLED_KEY`, `SERVER_DISABLED_KEY`) by a file
    other than the user's `store` (None: every file): the settings `layers` and Claude Code's
    `claude` file (its project entry's `decisions`) that hold it."""
    found: dict[tuple[str, str], list[Path]] = {}
    held = [(path, data) for path, data in layers if path != store]
    for path, data in [*held, (claude, decisions)]:
        for key in (DISABLED_KEY, SERVER_DISABLED_KEY):
            names = data.get(key)
            for name in names if isinstance(names, list) else []:  # pyright: ignore[reportUnknownVariableType]
                if isinstance(name, str) and path not in found.setdefault((key, name), []):
                    found[(key, name)].append(path)
    return found


def users_own_switches(settings: Settings, owners: Ownership) -> tuple[Settings, list[str]]:
    """The settings with `disabledMcpServers` taken from the user's own files only (their
    settings, `--settings`, the store `/mcp disable` writes), and a note for each file of the
    workspace's that lists it: it is left out of that file's layer and of the merged lists."""
    layers: list[tuple[Path, Mapping[str, Any]]] = []
    names: list[object] = []
    notes: list[str] = []
    for path, data in settings.layers:
        held = data.get(SERVER_DISABLED_KEY)
        if held is not None and owners.needs_trust(path):
            notes.append(
                f'{path}: "{SERVER_DISABLED_KEY}" is not read from a project\'s files: it would '
                "turn off servers the user configured (Claude Code keeps it in ~/.claude.json; "
                "/mcp disable keeps it for you, and disabledMcpjsonServers turns off the "
                "repository's own servers)"
            )
            data = {key: value for key, value in data.items() if key != SERVER_DISABLED_KEY}
        elif isinstance(held, list):
            names += [name for name in held if name not in names]  # pyright: ignore[reportUnknownVariableType]
        layers.append((path, data))
    merged = {key: value for key, value in settings.data.items() if key != SERVER_DISABLED_KEY}
    if names:
        merged[SERVER_DISABLED_KEY] = names
    return replace(settings, data=merged, layers=tuple(layers)), notes
