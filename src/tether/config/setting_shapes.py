"""The JSON type of every settings value below the top level that tether reads, and of
Claude Code's own keys a repository set up for it holds: a value of another type is a slip the
user hears about (the file, the key, what was wanted), read the safer way its remedy says
(`tether.config.fault_remedies`, applied by `tether.config.settings_faults`). Before,
`"additionalDirectories": "/tmp"` stopped the start, and a hook's `"statusMessage": 5` was
taken without a word.

The top-level keys tether reads are typed in `tether.config.settings_keys`; the numbers and
their ranges in `tether.config.numbers`.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any, cast

from tether.config.numbers import ANY, values_at


class Shape(Enum):
    """A JSON type a settings value must have, with how it is said to the user."""

    BOOL = "true or false"
    STRING = "a string"
    OBJECT = "an object"
    STRINGS = "a list of non-empty strings"
    """A list whose items must each be a non-empty string: an item that is not is left out
    alone (`"ask": [5, "Read"]` keeps its rule for Read)."""
    BOOL_OR_OBJECT = "true or false, or an object"
    NUMBER = "a number"

    def admits(self, value: object) -> bool:
        match self:
            case Shape.BOOL:
                return isinstance(value, bool)
            case Shape.STRING:
                return isinstance(value, str)
            case Shape.OBJECT:
                return isinstance(value, dict)
            case Shape.STRINGS:
                return isinstance(value, list)
            case Shape.BOOL_OR_OBJECT:
                return isinstance(value, bool | dict)
            case Shape.NUMBER:
                return isinstance(value, int | float) and not isinstance(value, bool)


HOOK = ("hooks", ANY, ANY, "hooks", ANY)
"""A hook entry: `hooks.<event>[group].hooks[entry]`."""

SETTING_SHAPES: Mapping[tuple[str, ...], Shape] = {
    # Permissions: each list's items are rules or directories.
    ("permissions", "allow"): Shape.STRINGS,
    ("permissions", "ask"): Shape.STRINGS,
    ("permissions", "deny"): Shape.STRINGS,
    ("permissions", "additionalDirectories"): Shape.STRINGS,
    ("permissions", "disableBypassPermissionsMode"): Shape.STRING,
    # The Bash sandbox, tether's keys and the Claude Code ones it honours.
    ("sandbox", "enabled"): Shape.BOOL,
    ("sandbox", "required"): Shape.BOOL,
    ("sandbox", "failIfUnavailable"): Shape.BOOL,
    ("sandbox", "autoAllowBashIfSandboxed"): Shape.BOOL,
    ("sandbox", "allowUnsandboxedCommands"): Shape.BOOL,
    ("sandbox", "network"): Shape.BOOL_OR_OBJECT,
    ("sandbox", "network", "allowUnixSockets"): Shape.STRINGS,
    ("sandbox", "network", "allowAllUnixSockets"): Shape.BOOL,
    ("sandbox", "writable"): Shape.STRINGS,
    ("sandbox", "readable"): Shape.STRINGS,
    ("sandbox", "env"): Shape.STRINGS,
    ("sandbox", "excludedCommands"): Shape.STRINGS,
    # Hooks: a matcher group, and each hook in it.
    ("hooks", ANY, ANY, "matcher"): Shape.STRING,
    (*HOOK, "type"): Shape.STRING,
    (*HOOK, "command"): Shape.STRING,
    (*HOOK, "prompt"): Shape.STRING,
    (*HOOK, "model"): Shape.STRING,
    (*HOOK, "url"): Shape.STRING,
    (*HOOK, "statusMessage"): Shape.STRING,
    (*HOOK, "onFailure"): Shape.STRING,
    (*HOOK, "async"): Shape.BOOL,
    (*HOOK, "asyncRewake"): Shape.BOOL,
    (*HOOK, "once"): Shape.BOOL,
    (*HOOK, "failClosed"): Shape.BOOL,
    (*HOOK, "headers"): Shape.OBJECT,
    (*HOOK, "allowedEnvVars"): Shape.STRINGS,
    # Claude Code's top-level keys, typed as its own settings schema types them.
    ("apiKeyHelper",): Shape.STRING,
    ("awsAuthRefresh",): Shape.STRING,
    ("awsCredentialExport",): Shape.STRING,
    ("otelHeadersHelper",): Shape.STRING,
    ("outputStyle",): Shape.STRING,
    ("language",): Shape.STRING,
    ("forceLoginMethod",): Shape.STRING,
    ("plansDirectory",): Shape.STRING,
    ("statusLine",): Shape.OBJECT,
    ("statusLine", "command"): Shape.STRING,
    ("statusLine", "type"): Shape.STRING,
    ("statusLine", "padding"): Shape.NUMBER,
    ("enabledPlugins",): Shape.OBJECT,
    ("extraKnownMarketplaces",): Shape.OBJECT,
    ("attribution",): Shape.OBJECT,
    ("companyAnnouncements",): Shape.STRINGS,
    ("includeCoAuthoredBy",): Shape.BOOL,
    ("includeGitInstructions",): Shape.BOOL,
    ("alwaysThinkingEnabled",): Shape.BOOL,
    ("respectGitignore",): Shape.BOOL,
    ("showTurnDuration",): Shape.BOOL,
    ("spinnerTipsEnabled",): Shape.BOOL,
    ("terminalProgressBarEnabled",): Shape.BOOL,
    ("allowManagedHooksOnly",): Shape.BOOL,
    ("allowManagedPermissionRulesOnly",): Shape.BOOL,
}
"""Every typed settings value by its path of keys (`ANY` for each key of an object or item
of a list)."""


def shape_faults(data: Mapping[str, Any]) -> list[tuple[tuple[str | int, ...], str]]:
    """Every value of `data` whose JSON type is not the one its key wants: where it is (its
    path of keys and list places) and what is wrong, naming the key, the type wanted and the
    value. Of a list of strings, each item that is not one is a fault of its own."""
    faults: list[tuple[tuple[str | int, ...], str]] = []
    for keys, shape in SETTING_SHAPES.items():
        for name, place, value in values_at(data, keys, "", ()):
            if value is None:
                continue
            if not shape.admits(value):
                faults.append((place, _problem(name, shape.value, value)))
            elif shape is Shape.STRINGS:
                faults.extend(
                    ((*place, i), _problem(f"{name}[{i}]", "a non-empty string", item))
                    for i, item in enumerate(cast(list[object], value))
                    if not (isinstance(item, str) and item)
                )
    return faults


def _problem(name: str, wanted: str, value: object) -> str:
    return f'"{name}" must be {wanted}, not {described_value(value)}'


def described_value(value: object) -> str:
    """`value` as a warning names it: its JSON type, then itself cut short."""
    import json

    match value:
        case bool():
            kind = "true or false"
        case int() | float():
            kind = "a number"
        case str():
            kind = "a string"
        case list():
            kind = "a list"
        case dict():
            kind = "an object"
        case _:
            kind = "null"
    text = json.dumps(value, ensure_ascii=False)
    return f"{kind} ({text if len(text) <= 40 else text[:37] + '...'})"
