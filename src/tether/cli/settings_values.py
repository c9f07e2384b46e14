"""Settings values of the right JSON type that still cannot be used, each left out with a
warning naming the file and key while the rest of its file holds: a hook block of an event
tether does not know, a `permissions.defaultMode` that names no mode and
a `cleanupPeriodDays` that is no positive whole number (both were taken without a word, so the
user believed a mode was set that was not). The `--settings` file is the user's own choice of
this run: a mistake in it still stops the run, as a wrong type in it does. A hook of a known
event that does not read stops the start (see `_usable_hooks`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from tether.config.fault_remedies import Remedy
from tether.config.settings import Settings, merge
from tether.hooks.config import read_hooks
from tether.hooks.spec import HOOK_EVENTS
from tether.permissions.rules import MODES
from tether.protocol import ConfigError


def usable_settings(settings: Settings, *, required: Path | None = None) -> Settings:
    """`settings` without the values no run can use (see the module), each told in `notes`."""
    notes: list[str] = []
    layers = tuple(
        (path, data if path == required else _usable(path, data, notes))
        for path, data in settings.layers
    )
    if not notes:
        return settings
    merged: dict[str, Any] = {}
    for _, data in layers:
        merged = merge(merged, data)
    return Settings(merged, layers, (*settings.notes, *notes))


def _usable(path: Path, data: Mapping[str, Any], notes: list[str]) -> Mapping[str, Any]:
    kept = dict(data)
    hooks = data.get("hooks")
    if isinstance(hooks, dict):
        kept["hooks"] = _usable_hooks(path, cast(dict[str, Any], hooks), notes)
    permissions = data.get("permissions")
    if isinstance(permissions, dict):
        mode = cast(dict[str, Any], permissions).get("defaultMode")
        if mode is not None and mode not in MODES:
            wanted = "one of " + ", ".join(f'"{m}"' for m in MODES)
            notes.append(_ignored(path, "permissions.defaultMode", wanted, mode))
            kept["permissions"] = {
                k: v for k, v in cast(dict[str, Any], permissions).items() if k != "defaultMode"
            }
    days = data.get("cleanupPeriodDays")
    if days is not None and not (type(days) is int and days >= 1):
        notes.append(_ignored(path, "cleanupPeriodDays", "a whole number of days from 1", days))
        del kept["cleanupPeriodDays"]
    return kept


def _usable_hooks(path: Path, hooks: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """The file's hook events that read as hooks. A hook of an event tether fires that does
    not read (a `type` of "commnd", a group's `hooks` that is no list) refuses the start, as a
    `command` of 5 does (`tether.config.fault_remedies`): it may be what guards the allow rules
    beside it. An event tether does not know is left out whole, said with what is wrong."""
    kept: dict[str, Any] = {}
    for event, groups in hooks.items():
        try:
            read_hooks([(path, {"hooks": {event: groups}})])
        except ConfigError as e:
            if event in HOOK_EVENTS:
                raise ConfigError(
                    f"{e}; {Remedy.REFUSE.value}: fix it or move the file away"
                ) from None
            notes.append(f"warning: {e}; the {event} hooks of that file are skipped: none runs")
        else:
            kept[event] = groups
    return kept


def _ignored(path: Path, key: str, wanted: str, value: object) -> str:
    import json

    shown = json.dumps(value, ensure_ascii=False)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    return (
        f'warning: settings file {path}: "{key}" must be {wanted}, not {shown}; '
        "ignored, as if the file did not set it"
    )
