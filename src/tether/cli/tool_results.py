"""A tool call's `tool_use_result`: the structured result Claude Code gives SDK clients beside
the text the model reads, in its field names, per tool.

tether's tools return the text the model reads; the structure is rebuilt from the call's input
and that text (and the diff a file change showed). A failed call is `"Error: <text>"`, as in
Claude Code; a tool this module does not know gets its text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tether.protocol import ToolFinished, ToolResultBlock

Shape = Callable[[dict[str, Any], str, ToolFinished | None], Any]


def structured_result(
    name: str, tool_input: dict[str, Any], block: ToolResultBlock, finished: ToolFinished | None
) -> Any:
    """The `tool_use_result` of one call's result."""
    if block.is_error:
        return f"Error: {block.content}"
    if name.startswith("mcp__"):
        return [{"type": "text", "text": block.content}]
    shape = _SHAPES.get(name)
    return shape(tool_input, block.content, finished) if shape is not None else block.content


def _bash(tool_input: dict[str, Any], text: str, finished: ToolFinished | None) -> Any:
    return {
        "stdout": text,
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": not text,
        **(
            {"backgroundTaskId": text.split()[0]}
            if tool_input.get("run_in_background") and text
            else {}
        ),
    }


def _read(tool_input: dict[str, Any], text: str, finished: ToolFinished | None) -> Any:
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    start = tool_input.get("offset")
    return {
        "type": "text",
        "file": {
            "filePath": tool_input.get("file_path", ""),
            "content": text,
            "numLines": lines,
            "startLine": start if isinstance(start, int) else 1,
            "totalLines": lines,
        },
    }


def _write(tool_input: dict[str, Any], text: str, finished: ToolFinished | None) -> Any:
    diff = finished.diff if finished is not None else None
    created = diff is None or "--- /dev/null" in diff or "\n-" not in diff
    return {
        "type": "create" if created else "update",
        "filePath": tool_input.get("file_path", ""),
        "content": tool_input.get("content", ""),
        "structuredPatch": [],
        "originalFile": None,
        "diff": diff or "",
    }


def _edit(tool_input: dict[str, Any], text: str, finished: ToolFinished | None) -> Any:
    return {
        "filePath": tool_input.get("file_path", ""),
        "oldString": tool_input.get("old_string", ""),
        "newString": tool_input.get("new_string", ""),
        "originalFile": None,
        "structuredPatch": [],
        "userModified": False,
        "replaceAll": bool(tool_input.get("replace_all", False)),
        "diff": (finished.diff if finished is not None else None) or "",
    }


def _glob(tool_input: dict[str, Any], text: str, finished: ToolFinished | None) -> Any:
    names = [line for line in text.splitlines() if line and not line.startswith("(")]
    return {
        "filenames": names,
        "durationMs": finished.duration_ms if finished is not None else 0,
        "numFiles": len(names),
        "truncated": "(" in text and "more" in text,
    }


def _grep(tool_input: dict[str, Any], text: str, finished: ToolFinished | None) -> Any:
    mode = tool_input.get("output_mode") or "files_with_matches"
    lines = [line for line in text.splitlines() if line]
    if mode == "files_with_matches":
        return {"mode": mode, "numFiles": len(lines), "filenames": lines}
    return {"mode": mode, "numFiles": 0, "filenames": [], "content": text, "numLines": len(lines)}


def _todos(tool_input: dict[str, Any], text: str, finished: ToolFinished | None) -> Any:
    return {"oldTodos": [], "newTodos": tool_input.get("todos", [])}


def _task(tool_input: dict[str, Any], text: str, finished: ToolFinished | None) -> Any:
    return {
        "status": "completed",
        "prompt": tool_input.get("prompt", ""),
        "content": [{"type": "text", "text": text}],
        "totalDurationMs": finished.duration_ms if finished is not None else 0,
    }


_SHAPES: dict[str, Shape] = {
    "Bash": _bash,
    "Read": _read,
    "Write": _write,
    "Edit": _edit,
    "Glob": _glob,
    "Grep": _grep,
    "TodoWrite": _todos,
    "Task": _task,
}
