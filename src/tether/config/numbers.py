"""Numbers read from settings files and environment variables, each checked against the range
it can mean something in. A window of -5 tokens or of 10^300, a timeout of `true`, is a slip
the user hears about (the key, where it was, the range), never a value silently dropped."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final, cast

from tether.slotted import Slotted

if TYPE_CHECKING:
    from tether.protocol import ConfigError


class NumberRange(Slotted):
    """The values a number may take: `low` to `high` inclusive, of `unit`; whole or not."""

    __slots__ = ("high", "low", "unit", "whole")
    low: Final[int | float]
    high: Final[int | float]
    unit: Final[str]
    whole: Final[bool]

    def __init__(self, low: int | float, high: int | float, unit: str, whole: bool = True) -> None:
        self.low = low
        self.high = high
        self.unit = unit
        self.whole = whole

    def described(self) -> str:
        kind = "a whole number" if self.whole else "a number"
        return f"{kind} of {self.unit} from {_figure(self.low)} to {_figure(self.high)}"

    def admits(self, value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if isinstance(value, float) and (self.whole or not math.isfinite(value)):
            return False
        return self.low <= value <= self.high


CONTEXT_WINDOW = NumberRange(1_024, 10_000_000, "tokens")
"""No model's window is smaller than a reply's least room, nor larger than ten million."""
MAX_OUTPUT_TOKENS = NumberRange(1, 1_000_000, "tokens")
THINKING_TOKENS = NumberRange(0, 1_000_000, "tokens")
IDLE_TIMEOUT_MS = NumberRange(1, 86_400_000, "milliseconds", whole=False)
"""Up to a day: a longer silence is a dead endpoint."""
RETRY_DELAY_MS = NumberRange(0, 600_000, "milliseconds", whole=False)
SLOW_TOOL_MS = NumberRange(1, 86_400_000, "milliseconds")

MCP_TIMEOUT_MS = NumberRange(1, 86_400_000, "milliseconds", whole=False)
HOOK_TIMEOUT_S = NumberRange(0.001, 86_400, "seconds", whole=False)
"""A hook's time: a millisecond at least (0 would never let it run), a day at most."""
WEBHOOK_TIMEOUT_S = NumberRange(0.001, 3_600, "seconds", whole=False)

ANY = "*"
"""In a path of keys: any key of an object, or any item of a list."""

SETTING_NUMBERS: Mapping[tuple[str, ...], NumberRange] = {
    ("contextWindow",): CONTEXT_WINDOW,
    ("maxOutputTokens",): MAX_OUTPUT_TOKENS,
    ("tether", "modelIdleTimeoutMs"): IDLE_TIMEOUT_MS,
    ("tether", "slowToolMs"): SLOW_TOOL_MS,
    ("tether", "subagents", "maxDepth"): NumberRange(1, 100, "levels"),
    ("tether", "subagents", "maxConcurrent"): NumberRange(1, 1_000, "subagents"),
    ("tether", "mcp", "startupTimeoutMs"): MCP_TIMEOUT_MS,
    ("tether", "mcp", "toolTimeoutMs"): MCP_TIMEOUT_MS,
    ("tether", "mcp", "maxOutputChars"): NumberRange(1, 100_000_000, "characters"),
    ("tether", "mcp", "toolSearchShare"): NumberRange(0, 1, "the window", whole=False),
    ("hooks", ANY, ANY, "hooks", ANY, "timeout"): HOOK_TIMEOUT_S,
    ("webhooks", ANY, "timeout"): WEBHOOK_TIMEOUT_S,
    ("webhooks", ANY, "queue"): NumberRange(1, 10_000_000, "events"),
}
"""Every numeric setting tether reads, by its path of keys (`ANY` for each key of an object or
item of a list: a hook's timeout, a webhook's). The settings loader checks them all when a
file is read; readers may trust a number they find there."""

ENV_NUMBERS: Mapping[str, NumberRange] = {
    "TETHER_CONTEXT_WINDOW": CONTEXT_WINDOW,
    "TETHER_MAX_OUTPUT_TOKENS": MAX_OUTPUT_TOKENS,
    "TETHER_MODEL_IDLE_TIMEOUT_MS": IDLE_TIMEOUT_MS,
    "TETHER_RETRY_DELAY_MS": RETRY_DELAY_MS,
    "TETHER_BACKGROUND_WAIT_MS": NumberRange(0, 86_400_000, "milliseconds", whole=False),
    "TETHER_HUNG_AFTER_MS": NumberRange(0, 86_400_000, "milliseconds", whole=False),
    "CLAUDE_CODE_MAX_RETRIES": NumberRange(0, 100, "retries"),
    "MAX_THINKING_TOKENS": THINKING_TOKENS,
}
"""Every numeric environment variable tether reads: its own, and Claude Code's it honours."""


def setting_numbers_error(path: object, data: Mapping[str, object]) -> ConfigError | None:
    """The error for the first numeric setting of the file at `path` (its content `data`)
    outside its range, naming the file, the key and the range; None when all are in range."""
    for keys, wanted in SETTING_NUMBERS.items():
        for name, value in _found(data, keys, ""):
            if value is not None and not wanted.admits(value):
                from tether.protocol import ConfigError  # on use: it loads pydantic

                return ConfigError(
                    f'settings file {path}: "{name}" must be {wanted.described()}, '
                    f"not {_shown(value)}"
                )
    return None


def setting_number_faults(data: Mapping[str, object]) -> list[tuple[tuple[str | int, ...], str]]:
    """Every numeric setting in `data` outside its range: where it is (its path of keys and
    list places) and what is wrong, naming the key as said to the user and the range."""
    faults: list[tuple[tuple[str | int, ...], str]] = []
    for keys, wanted in SETTING_NUMBERS.items():
        for name, place, value in values_at(data, keys, "", ()):
            if value is not None and not wanted.admits(value):
                faults.append(
                    (place, f'"{name}" must be {wanted.described()}, not {_shown(value)}')
                )
    return faults


CLIENT_HOOK_NUMBERS: Mapping[tuple[str, ...], NumberRange] = {
    (ANY, ANY, "timeout"): HOOK_TIMEOUT_S,
}
"""The numbers of the hooks an SDK client registers (`initialize`: per event, a list of
`{matcher, hookCallbackIds, timeout}`), in the same ranges as the settings' hooks."""


def client_hook_numbers_error(hooks: Mapping[str, object]) -> str | None:
    """What is wrong with the first number of a client's hooks outside its range, naming the
    key and the range; None when all are in range."""
    for keys, wanted in CLIENT_HOOK_NUMBERS.items():
        for name, value in _found(hooks, keys, "hooks"):
            if value is not None and not wanted.admits(value):
                return f"{name} must be {wanted.described()}, not {_shown(value)}"
    return None


def _found(value: object, keys: tuple[str, ...], name: str) -> list[tuple[str, object]]:
    """The values at the path `keys` under `value`, each with its name as said to the user
    (`hooks.Stop[0].hooks[1].timeout`); a path that leads nowhere finds nothing."""
    if not keys:
        return [(name, value)]
    key, rest = keys[0], keys[1:]
    if isinstance(value, dict):
        items = cast(dict[object, object], value)
        if key != ANY:
            return _found(items.get(key), rest, f"{name}.{key}" if name else key)
        return [
            found
            for inner, item in items.items()
            for found in _found(item, rest, f"{name}.{inner}" if name else str(inner))
        ]
    if isinstance(value, list) and key == ANY:
        listed = cast(list[object], value)
        return [
            found for i, item in enumerate(listed) for found in _found(item, rest, f"{name}[{i}]")
        ]
    return []


def values_at(
    value: object, keys: tuple[str, ...], name: str, place: tuple[str | int, ...]
) -> list[tuple[str, tuple[str | int, ...], object]]:
    """The values at the path `keys` under `value` (`ANY` for each key of an object or item
    of a list), each with its name as said to the user and its place: the keys and list
    indexes to it (for `tether.config.settings_faults` to leave it out)."""
    if not keys:
        return [(name, place, value)]
    key, rest = keys[0], keys[1:]
    if isinstance(value, dict):
        items = cast(dict[str, object], value)
        if key != ANY:
            return values_at(items.get(key), rest, f"{name}.{key}" if name else key, (*place, key))
        return [
            found
            for inner, item in items.items()
            for found in values_at(
                item, rest, f"{name}.{inner}" if name else inner, (*place, inner)
            )
        ]
    if isinstance(value, list) and key == ANY:
        listed = cast(list[object], value)
        return [
            found
            for i, item in enumerate(listed)
            for found in values_at(item, rest, f"{name}[{i}]", (*place, i))
        ]
    return []


def env_number(env: Mapping[str, str], name: str) -> int | float | None:
    """The environment variable `name` (one of `ENV_NUMBERS`) as a number in its range; None
    when unset or empty. Raises ConfigError naming it and the range otherwise."""
    text = env.get(name, "").strip()
    if not text:
        return None
    wanted = ENV_NUMBERS[name]
    try:
        value: int | float = int(text) if wanted.whole else float(text)
    except ValueError:  # not a number, or too many digits for Python to read
        value = math.nan
    if not wanted.admits(value):
        from tether.protocol import ConfigError

        raise ConfigError(f"{name} must be {wanted.described()}, not {_shown(text)}")
    return value


def _figure(value: int | float) -> str:
    return f"{int(value):,}" if value == int(value) else f"{value:,}"


def _shown(value: object) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False)  # JSON's spelling, as the file has it
    return text if len(text) <= 40 else text[:37] + "..."
