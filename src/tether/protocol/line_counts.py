"""The lines a file change added and removed, as its call's result data says it (Claude
Code's `toolUseResult`: an edit's `structuredPatch`): what the session's cost totals count,
as it runs and, from its entries, once resumed, the same way both times."""

from __future__ import annotations

from typing import Any, cast


def changed_lines(result: object) -> tuple[int, int]:
    """The lines added and removed by the change a `toolUseResult` describes: its
    `structuredPatch` hunks' "+" and "-" lines, or, for a file made (`type` "create", an
    empty patch), the lines of its `content`. (0, 0) for any other result, and for a
    garbled one: a count is not worth refusing an entry over."""
    if not isinstance(result, dict):
        return 0, 0
    fields = cast(dict[str, Any], result)
    patch = fields.get("structuredPatch")
    if not isinstance(patch, list):
        return 0, 0
    content = fields.get("content")
    if not patch and fields.get("type") == "create" and isinstance(content, str):
        return _line_count(content), 0
    added = removed = 0
    for hunk in cast(list[Any], patch):
        lines = cast(dict[str, Any], hunk).get("lines") if isinstance(hunk, dict) else None
        if not isinstance(lines, list):
            continue
        for line in cast(list[Any], lines):
            if isinstance(line, str) and line.startswith("+"):
                added += 1
            elif isinstance(line, str) and line.startswith("-"):
                removed += 1
    return added, removed


def _line_count(text: str) -> int:
    """Lines as a diff counts them: a final newline ends the last line, not another one."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)
