"""What the repeat guard says when it ends a turn for want of headway (`repeated_calls`): the
calls it stopped, tool by tool, and why none of them counted, in the words the user reads (the
text output's error line, stream-json's result `errors`)."""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping

_NAMED_TOOLS = 4
"""How many tools the stop names with their counts; the rest are summed."""

_NAMED_FILES = 3
"""How many of the files changed the stop names."""


def idle_stop_reason(
    idle: int,
    calls: Mapping[str, int],
    compactions: int,
    hung: str | None,
    files: tuple[Collection[str], Collection[str], str | None] = ((), (), None),
) -> str:
    """Why a turn ends after `idle` replies in a row without headway: `calls`, per tool, the
    calls of those replies; `compactions`, those the loop came through with nothing new
    (0: none counted); `hung`, a teammate that looks hung; `files`, those the replies changed
    and those they made (none of which held anything new: said as such, not "no file"), and the
    working directory their names are shown relative to."""
    laps = f", the conversation compacted {compactions} times" if compactions else ""
    ranked = sorted(calls.items(), key=lambda kv: (-kv[1], kv[0]))
    named = [f"{tool} {count}" for tool, count in ranked[:_NAMED_TOOLS]]
    rest = sum(count for _, count in ranked[_NAMED_TOOLS:])
    if rest:
        named.append(f"{len(ranked) - _NAMED_TOOLS} more tools {rest}")
    said = (
        f"the model looked at nothing new in {idle} replies in a row{laps} "
        f"(its calls in them: {', '.join(named) if named else 'none'}), "
        f"and {idle_files_said(*files)}"
    )
    return said + (f"; {hung}" if hung else "")


def idle_files_said(changed: Collection[str], made: Collection[str], cwd: str | None = None) -> str:
    """What replies without headway did to files, as the guard measured it: "changed no file"
    only when it saw none changed or made (a file changed to a content it had held, or made
    empty or a copy, is a change that counted for nothing, and said so)."""
    if not changed and not made:
        return "changed no file"
    parts: list[str] = []
    if changed:
        names = sorted(_shown(path, cwd) for path in changed)
        listed = ", ".join(names[:_NAMED_FILES]) + (
            " and more" if len(names) > _NAMED_FILES else ""
        )
        them, their, they = ("it", "its", "it") if len(changed) == 1 else ("them", "their", "they")
        parts.append(
            f"changed {_files(len(changed))} ({listed}) with nothing new in {them} (only "
            f"{their} numbers, a content {they} had held in the turn, or a command's own words)"
        )
    if made:
        parts.append(
            f"made {_files(len(made))} holding nothing new (empty, copies of what others held, "
            "or text new only in its numbers or a command's own words)"
        )
    return " and ".join(parts)


def _files(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"


def _shown(path: str, cwd: str | None) -> str:
    """A file's name as the stop shows it: relative to the working directory when under it."""
    if cwd is not None and path.startswith(cwd.rstrip(os.sep) + os.sep):
        return os.path.relpath(path, cwd)
    return path
