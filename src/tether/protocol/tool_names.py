"""Tool names as Claude Code spells them now, beside tether's own.

Claude Code renamed some tools (Task became Agent, BashOutput TaskOutput, KillShell TaskStop) and
still accepts the old names. Settings written for either name must reach the same tool, in
permission rules and hook matchers alike; this is the one table both read.
"""

from __future__ import annotations

from collections.abc import Mapping

TOOL_ALIASES: Mapping[str, str] = {
    "Agent": "Task",
    "TaskOutput": "BashOutput",
    "TaskStop": "KillShell",
}
"""Another name -> tether's tool name."""


def canonical_tool(name: str) -> str:
    """tether's name for the tool `name` names (itself when it is no alias)."""
    return TOOL_ALIASES.get(name, name)


CLAUDE_CODE_NAMES: Mapping[str, str] = {tool: name for name, tool in TOOL_ALIASES.items()}
"""tether's tool name -> the name Claude Code gives that tool now."""


def claude_code_name(name: str) -> str:
    """The name Claude Code gives tether's tool `name` (itself when Claude Code calls it so):
    what a hook's payload and an SDK program's `can_use_tool` are told, as Claude Code tells
    them (`Agent` for Task, whichever name the model called it by)."""
    return CLAUDE_CODE_NAMES.get(name, name)


OFFERED_NAMES: Mapping[str, str] = {"Task": "Agent"}
"""tether's tool name -> the name a model is offered it by, as Claude Code offers it."""


def offered_name(name: str) -> str:
    """The name the model knows the tool `name` by: in the tools of a request, and in the
    calls of its history, whichever name a call was made by (a transcript from before, a
    model that called the old name), as Claude Code sends them (`Agent` for Task)."""
    return OFFERED_NAMES.get(name, name)


def tool_spellings(name: str) -> tuple[str, ...]:
    """Every name the tool `name` is known by, its own first: a hook matcher written with any of
    them matches it (`Agent` for tether's Task)."""
    canonical = canonical_tool(name)
    others = tuple(a for a, t in TOOL_ALIASES.items() if t == canonical and a != name)
    return (name, *((canonical,) if canonical != name else ()), *others)
