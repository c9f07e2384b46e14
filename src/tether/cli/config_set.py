"""`/config KEY VALUE`: one setting written to the user's `~/.claude/settings.json`, after the
would-be file passes the checks start-up puts it through (key types and number ranges,
permission modes and rules, the model as start-up resolves it): a value start-up would refuse
is refused here, and nothing is written. `KEY` may be dotted (`permissions.defaultMode`): it
names a key inside a table; in a table keyed by ids that hold dots (`enabledPlugins`), the
rest of the key is one id."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.text import Text

from tether.cli.repl_help import shorten_home
from tether.cli.terminal_text import terminal_safe

CONFIG_USAGE = '/config [KEY VALUE]: VALUE is JSON (true, 3, "text") or else taken as text.'
VIEWED_ELSEWHERE = {
    "permissions": "/permissions",
    "hooks": "/hooks",
    "outputStyle": "/output-style",
}

Layers = Sequence[tuple[Path, Mapping[str, Any]]]


def change_config(args: str, user_home: Path, layers: Layers) -> Text:
    """`/config KEY VALUE`: KEY set in the user's settings file (everything else in it kept),
    in force from the next session; `layers` are the session's settings files, for the checks
    that look at them together (a model of a provider another file defines)."""
    from tether.cli.permissions_edit import update_settings
    from tether.protocol import ConfigError

    key, _, raw = args.partition(" ")
    raw = raw.strip()
    if not key or not raw:
        return Text(f"Usage: {CONFIG_USAGE}", style="yellow")
    if key in VIEWED_ELSEWHERE:
        return Text(f"{key} is changed with {VIEWED_ELSEWHERE[key]}.", style="yellow")
    names = key_path(key)
    if not all(names):
        return Text(f"✗ /config: {terminal_safe(key)!r} is not a settings key.", style="red")
    try:
        value: Any = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    path = user_home / ".claude" / "settings.json"
    notes: list[str] = []

    def setting(data: dict[str, Any]) -> None:
        would_be = copy.deepcopy(data)
        _set_nested(would_be, names, value)
        notes.extend(check_settings(path, would_be, layers))
        data.clear()
        data.update(would_be)

    try:
        update_settings(path, setting)
    except ConfigError as e:
        refused = Text(f"✗ /config: {terminal_safe(str(e))}\n", style="red")
        return refused.append(f"  {terminal_safe(key)} not set: nothing written.", style="red")
    said = json.dumps(value, ensure_ascii=False)
    text = Text()
    for note in notes:
        text.append(f"⚠ {terminal_safe(note)}\n", style="yellow")
    return text.append(
        f"✓ {terminal_safe(key)} = {terminal_safe(said)} in {shorten_home(path)} (in force from "
        "/clear or the next session)",
        style="green",
    )


ID_TABLES = frozenset({"enabledPlugins"})
"""Tables whose keys are ids that may hold dots (`formatter@my.market`)."""


def key_path(key: str) -> list[str]:
    """The names in a dotted `/config` KEY: split at each dot, except that inside a table of
    `ID_TABLES` the rest is one id (`enabledPlugins.formatter@my.market` names the plugin
    `formatter@my.market`)."""
    table, dot, rest = key.partition(".")
    if dot and table in ID_TABLES:
        return [table, rest]
    return key.split(".")


def file_warnings(layers: Layers) -> list[str]:
    """What start-up says of the shape of the settings already in the files `layers` (the
    plugin settings: `setting_warnings`), for `/config` to say beside the values."""
    from tether.plugins.loading import setting_warnings

    return [note for path, data in layers for note in setting_warnings(path, data)]


def _set_nested(data: dict[str, Any], names: Sequence[str], value: Any) -> None:
    from tether.protocol import ConfigError

    table = data
    for i, name in enumerate(names[:-1]):
        inner = table.setdefault(name, {})
        if not isinstance(inner, dict):
            held = ".".join(names[: i + 1])
            raise ConfigError(f"{held} holds {json.dumps(inner)}, not a table of keys")
        table = inner  # pyright: ignore[reportUnknownVariableType]
    table[names[-1]] = value


def check_settings(path: Path, data: Mapping[str, Any], layers: Layers) -> list[str]:
    """The warnings start-up would give about the settings file at `path` holding `data`
    (with the session's other files `layers`); `ConfigError` for what would stop it."""
    from tether.cli.model_options import resolve
    from tether.config.settings import Settings, merge
    from tether.config.settings_keys import CLAUDE_CODE_KEYS, READ_KEYS, key_notes
    from tether.hooks.config import parse_hooks
    from tether.observe.webhook_settings import read_webhooks
    from tether.permissions.rules import additional_directories, default_mode, load_rules
    from tether.plugins.loading import setting_warnings
    from tether.sandbox.settings import parse_sandbox_settings

    notes = key_notes(path, data)
    notes.extend(setting_warnings(path, data))  # start-up's warnings, said before writing
    for key in data:
        if (
            key not in READ_KEYS
            and key not in CLAUDE_CODE_KEYS
            and not any(key in n for n in notes)
        ):
            notes.append(f'settings file {path}: "{key}" is not a setting tether reads')
    own = [(path, data)]
    default_mode(own)
    additional_directories(own)
    load_rules(own, seed_yaml=None)
    together = [(p, d) for p, d in layers if p != path]
    together.insert(0, (path, data))
    merged: dict[str, Any] = {}
    for _, layer in together:
        merged = merge(merged, layer)
    settings = Settings(merged, tuple(together))
    # The other blocks start-up refuses when broken (a dotted key reaches inside them).
    parse_hooks(together)
    read_webhooks(merged, {**os.environ, **settings.env})
    parse_sandbox_settings(merged, source=str(path))
    if "model" in data or "providers" in data:
        spec = settings.model
        if spec is not None:
            resolve(spec, {**os.environ, **settings.env}, settings)
    return notes
