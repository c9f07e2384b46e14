"""The top-level settings keys known, so that a mistake in one is told rather than ignored.

A misspelled key (`permisions`) silently drops what it holds, deny rules included: it is
warned about, with the nearest known key. A known key whose value has the wrong JSON type
(`"model": 42`), or a number outside its range (`"contextWindow": -5`, `tether.config.numbers`),
is left out with a warning naming the file and key, the rest of the file holding
(`tether.config.settings_faults`); in the `--settings` file it is a `ConfigError` that stops.
Claude Code's own keys that tether does not read are known too, so a repository set up for
Claude Code starts without warnings.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tether.config.numbers import SETTING_NUMBERS, setting_numbers_error
from tether.config.setting_shapes import described_value

READ_KEYS: Mapping[str, type] = {
    "model": str,
    "env": dict,
    "permissions": dict,
    "hooks": dict,
    "disableAllHooks": bool,
    "sandbox": dict,
    "mcpServers": dict,
    "enabledMcpjsonServers": list,
    "disabledMcpjsonServers": list,
    "disabledMcpServers": list,
    "enableAllProjectMcpServers": bool,
    "providers": dict,
    "contextWindow": int,
    "maxOutputTokens": int,
    "tether": dict,
    "teams": dict,
}
"""The keys tether reads, with the JSON type each must have."""

CLAUDE_CODE_KEYS = frozenset(
    {
        "$schema",
        "apiKeyHelper",
        "attribution",
        "allowManagedHooksOnly",
        "allowManagedPermissionRulesOnly",
        "allowedMcpServers",
        "alwaysThinkingEnabled",
        "autoUpdatesChannel",
        "awsAuthRefresh",
        "awsCredentialExport",
        "cleanupPeriodDays",
        "companyAnnouncements",
        "deniedMcpServers",
        "enabledPlugins",
        "extraKnownMarketplaces",
        "fileSuggestion",
        "forceLoginMethod",
        "forceLoginOrgUUID",
        "includeCoAuthoredBy",
        "includeGitInstructions",
        "language",
        "otelHeadersHelper",
        "outputStyle",
        "plansDirectory",
        "respectGitignore",
        "showTurnDuration",
        "spinnerTipsEnabled",
        "spinnerVerbs",
        "statusLine",
        "strictKnownMarketplaces",
        "terminalProgressBarEnabled",
    }
)
"""Claude Code's settings that tether does not read: known, so never warned about."""

_TYPE_NAMES = {str: "a string", dict: "an object", list: "a list", bool: "true or false"}


def key_notes(path: Path | str, data: Mapping[str, Any]) -> list[str]:
    """One warning per unknown top-level key of the file at `path` that looks like a slip of a
    key tether reads, naming it. Raises `ConfigError` naming the file and key when a known
    key's value has the wrong type."""
    notes: list[str] = []
    for key, value in data.items():
        expected = READ_KEYS.get(key)
        if expected is not None:
            if not _has_type(value, expected):
                raise _wrong_type(path, key, expected, value)
        elif key not in CLAUDE_CODE_KEYS and (near := _nearest(key)):
            notes.append(f'warning: settings file {path}: unknown key "{key}"{near}; ignored')
    error = setting_numbers_error(path, data)
    if error is not None:
        raise error
    return notes


def key_faults(data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each known top-level key of `data` whose value has the wrong JSON type, with what is
    wrong (the key, the type wanted and the value)."""
    return [
        (key, _type_problem(key, expected, value))
        for key, value in data.items()
        if (expected := READ_KEYS.get(key)) is not None and not _has_type(value, expected)
    ]


def _has_type(value: object, expected: type) -> bool:
    if expected is int:  # JSON true is not a number
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, expected)


def _nearest(key: str) -> str:
    """A key tether reads that `key` looks like a slip of; "" when none does: Claude Code
    has many more keys than any list here keeps up with, and one of those is not an error."""
    import difflib  # only for a key tether does not read: not with every start

    close = difflib.get_close_matches(key, list(READ_KEYS), n=1, cutoff=0.8)
    return f' (did you mean "{close[0]}"?)' if close else ""


def _wrong_type(path: Path | str, key: str, expected: type, value: object) -> Exception:
    from tether.protocol import ConfigError  # on use: it loads pydantic

    return ConfigError(f"settings file {path}: {_type_problem(key, expected, value)}")


def _type_problem(key: str, expected: type, value: object) -> str:
    number = SETTING_NUMBERS.get((key,))
    wanted = _TYPE_NAMES.get(expected) or (number.described() if number else "a whole number")
    return f'"{key}" must be {wanted}, not {described_value(value)}'
