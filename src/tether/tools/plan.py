"""The model's plan (TodoWrite's list) as text: the checklist and the reminder of its open
items. Apart from the tool, which the session imports only at its first call: the loop, the
compactor and the display show the plan whether or not the tool ran in this process."""

from __future__ import annotations

from collections.abc import Sequence

from tether.tools.context import TodoItem, TodoStatus

MAX_REMINDER_ITEMS = 8
"""Open items named in a reminder; the rest are counted, so the reminder stays short."""

MARKS: dict[TodoStatus, str] = {"completed": "☒", "in_progress": "◐", "pending": "☐"}


def render_todos(todos: Sequence[TodoItem]) -> str:
    """The plan as a checklist, one item a line: ☒ completed, ◐ in progress, ☐ pending."""
    return "\n".join(f"{MARKS[item.status]} {item.content}" for item in todos)


def todo_reminder(todos: Sequence[TodoItem]) -> str | None:
    """A short reminder of the plan's open items (in progress first, then pending, in list
    order) for the newest user message; None when nothing is open."""
    open_items = [t for t in todos if t.status == "in_progress"]
    open_items += [t for t in todos if t.status == "pending"]
    if not open_items:
        return None
    shown = "; ".join(f"{MARKS[t.status]} {t.content}" for t in open_items[:MAX_REMINDER_ITEMS])
    hidden = len(open_items) - MAX_REMINDER_ITEMS
    more = f"; +{hidden} more" if hidden > 0 else ""
    return (
        f"Your plan (TodoWrite) has open items: {shown}{more}. Update it as you go: mark each "
        "item completed as soon as it is done."
    )
