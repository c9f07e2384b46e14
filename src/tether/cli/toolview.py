"""How one tool call looks in the terminal: its headline, a preview of its result, its diff,
the plan a TodoWrite call sets, and the question asked when it needs the user's approval.

Pure functions from event data to rich `Text`, so the renderer stays a small state machine and
these stay easy to test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text

from tether.protocol.tool_events import diff_line_counts
from tether.tools.builtin.files import unified_lines
from tether.tools.context import TodoStatus
from tether.tools.plan import MARKS

PREVIEW_LINES = 3
"""Result lines shown under a tool call (the first ones and the last); the rest is counted."""

VERBOSE_PREVIEW_LINES = 20

DIFF_LINES = 40
"""Diff lines shown for an edit (more with --verbose); enough for a focused change."""

VERBOSE_DIFF_LINES = 400

RESULT_INDENT = "     "
_RESULT_LEAD = "  ⎿  "

TODO_TOOL = "TodoWrite"
PlanItem = tuple[str, TodoStatus]
"""One item of the model's plan: (content, status), status a key of `MARKS`."""
_PLAN_STYLES: dict[TodoStatus, str] = {
    "completed": "dim strike",
    "in_progress": "bold",
    "pending": "",
}

# The argument that says most about a call, per tool; the first present one is shown.
_KEY_ARGUMENTS = (
    "command",
    "file_path",
    "notebook_path",
    "pattern",
    "path",
    "url",
    "query",
    "description",
    "prompt",
)


def tool_headline(
    name: str, arguments: dict[str, Any], *, workspace: Path | None, width: int
) -> Text:
    """`● Bash(pytest -q)`: the tool and its key argument, on one line."""
    summary = _key_argument(name, arguments, workspace)
    line = Text()
    line.append("● ", style="bold cyan")
    line.append(name, style="bold")
    room = max(10, width - len(name) - 4)
    line.append(f"({_one_line(summary, room)})")
    return line


def _key_argument(name: str, arguments: dict[str, Any], workspace: Path | None) -> str:
    items = plan_items(arguments) if name == TODO_TOOL else None
    if items is not None:
        return f"{len(items)} item" + ("" if len(items) == 1 else "s")
    for key in _KEY_ARGUMENTS:
        value = arguments.get(key)
        if isinstance(value, str) and value:
            if key in ("file_path", "notebook_path", "path"):
                value = display_path(value, workspace)
            where = arguments.get("path")
            if key == "pattern" and isinstance(where, str) and where:
                return f"{value} in {display_path(where, workspace)}"
            return value
    strings = [v for v in arguments.values() if isinstance(v, str) and v]
    return strings[0] if strings else ""


def display_path(path: str, workspace: Path | None) -> str:
    """A path relative to the workspace when it lies inside it; as given otherwise."""
    if workspace is None:
        return path
    candidate = Path(path)
    if not candidate.is_absolute():
        return path
    try:
        relative = candidate.relative_to(workspace)
    except ValueError:
        return path
    return str(relative) if relative.parts else "."


def _one_line(value: str, room: int) -> str:
    lines = value.strip().splitlines() or [""]
    first = lines[0]
    if len(lines) > 1:
        first += " …"
    return cut_line(first, room)


def result_preview(
    name: str, content: str, *, is_error: bool, width: int, max_lines: int = PREVIEW_LINES
) -> Text:
    """A result under its call, dimmed (red for an error): its first lines and, when lines
    are left out, a count of them and the last line (where commands put their verdict)."""
    style = "red" if is_error else "dim"
    if name == "Read" and not is_error:
        lines = [f"Read {_count_lines(content)} lines"]
    else:
        lines = content.expandtabs(4).strip("\n").splitlines() or ["(no output)"]
    if len(lines) <= max_lines + 1:
        head, tail = lines, []
    else:
        head, tail = lines[: max_lines - 1], lines[-1:]
    hidden = len(lines) - len(head) - len(tail)
    text = Text()
    room = max(10, width - len(_RESULT_LEAD))
    for index, line in enumerate(head):
        text.append(_RESULT_LEAD if index == 0 else RESULT_INDENT, style="dim")
        text.append(cut_line(line, room), style=style)
        text.append("\n")
    if hidden:
        text.append(f"{RESULT_INDENT}… +{hidden} lines\n", style="dim")
    for line in tail:
        text.append(RESULT_INDENT, style="dim")
        text.append(cut_line(line, room), style=style)
    text.rstrip()
    return text


def _count_lines(content: str) -> int:
    return len(content.rstrip("\n").splitlines())


def cut_line(line: str, room: int) -> str:
    """`line` cut to `room` characters, an ellipsis marking the cut."""
    return line if len(line) <= room else line[: room - 1] + "…"


def plan_items(arguments: dict[str, Any]) -> list[PlanItem] | None:
    """The plan a TodoWrite call sets, as (content, status) pairs; None when `arguments` do
    not hold one (the tool rejects such a call)."""
    todos = arguments.get("todos")
    if not isinstance(todos, list):
        return None
    items: list[PlanItem] = []
    entries: list[object] = todos
    for entry in entries:
        fields: dict[str, object] = entry if isinstance(entry, dict) else {}
        content = fields.get("content")
        status: TodoStatus | None = next((s for s in MARKS if s == fields.get("status")), None)
        if not isinstance(content, str) or status is None:
            return None
        items.append((content.strip(), status))
    return items


def plan_checklist(
    items: list[PlanItem], *, width: int, lead: str = _RESULT_LEAD, indent: str = RESULT_INDENT
) -> Text:
    """The plan as a checklist: ☒ completed (dim, struck through), ◐ in progress (bold),
    ☐ pending; "Plan cleared" for an empty plan."""
    text = Text()
    if not items:
        text.append(lead, style="dim")
        text.append("Plan cleared", style="dim")
        return text
    room = max(10, width - len(lead) - 2)
    for index, (content, status) in enumerate(items):
        text.append(lead if index == 0 else indent, style="dim")
        line = f"{MARKS[status]} {_one_line(content, room)}"
        text.append(line, style=_PLAN_STYLES[status])
        text.append("\n")
    text.rstrip()
    return text


def diff_view(
    diff: str,
    path: str | None,
    *,
    width: int,
    max_lines: int = DIFF_LINES,
    verb: str = "Updated",
) -> Text:
    """A unified diff, coloured (additions green, removals red, hunk headers cyan), under a
    summary line `Updated path (+a -r)` (`verb` replaces "Updated"); capped at `max_lines`."""
    body = [line for line in diff.splitlines() if not line.startswith(("--- ", "+++ "))]
    added, removed = diff_line_counts(diff)
    text = Text()
    text.append(_RESULT_LEAD, style="dim")
    text.append(f"{verb} {path or 'file'} ")
    text.append(f"+{added}", style="green")
    text.append(" ")
    text.append(f"-{removed}", style="red")
    text.append("\n")
    room = max(10, width - len(RESULT_INDENT))
    for line in body[:max_lines]:
        text.append(RESULT_INDENT)
        text.append(cut_line(line.expandtabs(4), room), style=_diff_style(line))
        text.append("\n")
    hidden = len(body) - min(len(body), max_lines)
    if hidden:
        text.append(f"{RESULT_INDENT}… +{hidden} diff lines\n", style="dim")
    text.rstrip()
    return text


def _diff_style(line: str) -> str:
    if line.startswith("@@"):
        return "cyan"
    if line.startswith("+"):
        return "green"
    if line.startswith("-"):
        return "red"
    if line.startswith("\\"):
        return "dim"
    return ""


def proposed_diff(name: str, arguments: dict[str, Any], current: str | None) -> str | None:
    """What an Edit or Write call would change, as a unified diff; `current` is the file's
    text (None when it does not exist or cannot be read). None for other tools."""
    if name == "Write":
        content = arguments.get("content")
        return _unified(current or "", content) if isinstance(content, str) else None
    if name != "Edit":
        return None
    old, new = arguments.get("old_string"), arguments.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str) or not old:
        return None
    if current is None or old not in current:
        return _unified(old, new)  # the tool will refuse; show what was asked for anyway
    count = -1 if arguments.get("replace_all") is True else 1
    return _unified(current, current.replace(old, new, count))


def _unified(old: str, new: str) -> str:
    lines = unified_lines(old.splitlines(keepends=True), new.splitlines(keepends=True), "", "")
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def offers_accept_edits(tool: str, *, by_mode: bool) -> bool:
    """Whether the question about a call of `tool` offers Shift+Tab: allow it and accept
    edits for the session (an edit, asked by a rule or the default mode, not by plan mode)."""
    from tether.permissions.rules import EDIT_TOOLS

    return tool in EDIT_TOOLS and tool != "Revert" and not by_mode


def permission_question(reason: str, suggestion: str | None, *, accept_edits: bool = False) -> Text:
    """The question under a call that needs approval: why it is asked, and the keys that
    answer (choice 2 only when there is a rule to remember; Shift+Tab when `accept_edits`)."""
    text = Text()
    text.append("  ? ", style="bold yellow")
    text.append("Allow this call?", style="bold")
    text.append(f" ({reason})", style="yellow")
    text.append("\n")
    choices = [("1", "Yes, once", "  (y)")]
    if suggestion is not None:
        choices.append(("2", f"Yes, and always allow {suggestion} for this project", ""))
    if accept_edits:
        choices.append(("⇧⇥", "Yes, allow all edits during this session", "  (shift+tab)"))
    choices.append(("3", "No", "  (n, esc · tab: no, and tell the model why)"))
    for key, label, hint in choices:
        text.append(f"    {key}  ", style="bold cyan")
        text.append(label)
        text.append(hint, style="dim")
        text.append("\n")
    text.rstrip()
    return text


def permission_verdict(choice: str, suggestion: str | None) -> Text | None:
    """The line left under the question once it is answered; None for a denial, which the
    call's result says already."""
    if choice == "allow_once":
        return Text("  ✓ Allowed once", style="green")
    if choice == "allow_always":
        rule = f": {suggestion}" if suggestion else ""
        return Text(f"  ✓ Always allowed for this project{rule}", style="green")
    return None
