"""A prompt read as the value of a list option, said as such.

`--add-dir`, `--allowedTools`, `--disallowedTools` and `--mcp-config` take every word up to the next
option, as in Claude Code (`<values...>`), so `tether -p --allowedTools Edit "fix it"` reads the
prompt as a rule and then finds no prompt. Claude Code names the word ("was read as a value of
--allowedTools, not as a prompt"); so does tether, for the option whose list came last and whose
last word cannot be one of its values. With `-p` and a prompt piped to stdin, Claude Code goes on
with that prompt and only warns (checked with its CLI); so does tether.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path


def _not_a_directory(value: object) -> bool:
    return not Path(str(value)).expanduser().is_dir()


def _not_rules(value: object) -> bool:
    """A word holding a rule whose tool tether does not know (`fix it` is two such rules)."""
    from tether.permissions.rules import split_tool_list
    from tether.permissions.tool_names import unknown_tool

    return any(unknown_tool(rule) is not None for rule in split_tool_list(str(value)))


def _not_a_config(value: object) -> bool:
    """Neither inline JSON nor a file."""
    text = str(value).strip()
    return not text.startswith("{") and not Path(text).expanduser().is_file()


_LIST_OPTIONS: tuple[tuple[str, tuple[str, ...], str, Callable[[object], bool]], ...] = (
    ("add_dirs", ("--add-dir",), "directory", _not_a_directory),
    ("allowed_tools", ("--allowedTools", "--allowed-tools"), "rule", _not_rules),
    ("disallowed_tools", ("--disallowedTools", "--disallowed-tools"), "rule", _not_rules),
    ("mcp_configs", ("--mcp-config",), "config", _not_a_config),
)


def swallowed_prompt(args: argparse.Namespace, argv: Sequence[str]) -> str | None:
    """What to say (without "tether: error: ") when no prompt was given and the list option
    written last ends with a word that cannot be one of its values (the prompt the user
    meant), else None."""
    if args.prompt is not None:
        return None
    written: list[tuple[int, str, str, Callable[[object], bool], list[object]]] = []
    for dest, flags, kind, wrong in _LIST_OPTIONS:
        values: list[object] = getattr(args, dest, None) or []
        at = max((i for i, word in enumerate(argv) if word in flags), default=-1)
        if values and at >= 0:
            written.append((at, argv[at], kind, wrong, values))
    if not written:
        return None
    _, flag, kind, wrong, values = max(written, key=lambda option: option[0])
    if not wrong(values[-1]):
        return None
    return (
        f"{flag} takes every word after it as a {kind}, and {str(values[-1])!r} "
        f"is not one: put the prompt before {flag}, or end the list with --"
    )
