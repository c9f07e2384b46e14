"""Reading front matter that is not valid YAML as `key: value` lines, as Claude Code does.

Agent and skill files in the wild (Anthropic's own plugin agents among them) hold descriptions
such as `description: Use this agent when... Examples: <example>Context: ...</example>`,
unquoted: the `: ` inside makes a strict YAML parser reject the whole file, where Claude Code
loads it. This reader takes each top-level `key: value` line as an entry, the lines after it
(indented, or unknown `Word:` lines inside a description) as the rest of its value, and `- item`
lines under an empty key as a list.
"""

from __future__ import annotations

import re
from typing import Any

_KEY_LINE = re.compile(r"([A-Za-z][\w.-]*):(?:[ \t]+(.*))?$")
_LIST_ITEM = re.compile(r"[ \t]*-[ \t]+(.*)$")
FREE_TEXT_KEYS = frozenset({"description", "when_to_use"})
"""Keys whose value is prose: a `Word: ...` line below them is more prose, unless it is one of
`KNOWN_KEYS` (`Context:`, `user:` and `assistant:` inside examples are prose)."""
KNOWN_KEYS = frozenset(
    {
        "name",
        "description",
        "tools",
        "disallowedTools",
        "model",
        "color",
        "maxTurns",
        "permissionMode",
        "allowed-tools",
        "argument-hint",
        "disable-model-invocation",
        "user-invocable",
        "license",
        "version",
        "metadata",
        "context",
        "agent",
        "effort",
        "hooks",
        "skills",
        "mcpServers",
        "memory",
        "when_to_use",
    }
)


def read_key_value_lines(source: str) -> dict[str, Any]:
    """The front matter as a mapping, read line by line; values are strings, lists of strings,
    booleans (`true`/`false`) or whole numbers."""
    entries: dict[str, list[str]] = {}
    items: dict[str, list[str]] = {}
    current: str | None = None
    for line in source.splitlines():
        match = _KEY_LINE.match(line)
        if match is not None and _starts_entry(match.group(1), current):
            key: str = match.group(1)
            entries[key] = [match.group(2) or ""]
            current = key
            continue
        if current is None:
            continue
        item = _LIST_ITEM.match(line)
        if item is not None and not "".join(entries[current]).strip():
            items.setdefault(current, []).append(_unquoted(item.group(1).strip()))
        else:
            entries[current].append(line.strip())
    return {
        key: items[key] if key in items else _scalar("\n".join(lines).strip())
        for key, lines in entries.items()
    }


def _starts_entry(key: str, current: str | None) -> bool:
    return current not in FREE_TEXT_KEYS or key in KNOWN_KEYS


def _scalar(text: str) -> object:
    if text in ("true", "false"):
        return text == "true"
    if text.isdigit():
        return int(text)
    return _unquoted(text)


def _unquoted(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text
