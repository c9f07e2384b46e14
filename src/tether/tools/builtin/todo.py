"""TodoWrite: the model's plan for the task at hand, kept as session state and shown back to it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from tether.protocol import ToolError
from tether.tools.base import ToolOutput, tool
from tether.tools.context import TodoItem, TodoStatus, ToolContext
from tether.tools.plan import MARKS, render_todos

NonEmpty = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class TodoEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    content: NonEmpty = Field(
        description="What to do, in the imperative: 'Run the tests', 'Fix the type errors'."
    )
    status: TodoStatus = Field(
        description="pending (not started), in_progress (being worked on now; at most one "
        "item), or completed (finished)."
    )
    active_form: NonEmpty = Field(
        alias="activeForm",
        description="The same step in the present continuous, shown while it is in progress: "
        "'Running the tests', 'Fixing the type errors'.",
    )


class TodoWriteInput(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    todos: list[TodoEntry] = Field(
        description="The whole updated list, every item in order, replacing the previous one. "
        "An empty list clears the plan."
    )


@tool("TodoWrite", read_only=True)
async def todo_write(ctx: ToolContext, args: TodoWriteInput) -> ToolOutput:
    """Create and update a structured plan for the current task; the user sees it as a checklist.

    Use it:
    - for tasks of three or more distinct steps, or work that needs careful planning;
    - when the user gives several tasks at once (a numbered or comma-separated list);
    - when new requirements turn up while working: add them as items;
    - before starting an item, to mark it in_progress; right after finishing it, to mark it
      completed.

    Skip it for a single, simple step, for trivial tasks of one or two quick actions, and for
    questions that need no changes; then just do the work.

    How:
    - Send the whole list each time; it replaces the previous one.
    - Keep exactly one item in_progress while working (never more than one).
    - Mark an item completed as soon as it is done; do not batch completions. Only mark it
      completed when it is fully done: not while tests fail, the work is partial or an error is
      unresolved; then keep it in_progress and add an item for what blocks it.
    - Remove items that turned out to be unnecessary.
    """
    in_progress = [e.content for e in args.todos if e.status == "in_progress"]
    if len(in_progress) > 1:
        listed = "; ".join(in_progress)
        raise ToolError(
            f"{len(in_progress)} items are in_progress ({listed}); at most one may be. "
            "Keep the one being worked on now in_progress, set the others to pending or "
            "completed, and send the whole list again."
        )
    before = ctx.todos
    ctx.todos = tuple(TodoItem(e.content, e.status, e.active_form) for e in args.todos)
    structured = {"oldTodos": _as_data(before), "newTodos": _as_data(ctx.todos)}
    if not ctx.todos:
        return ToolOutput("Todo list cleared.", structured=structured)
    counts = {status: sum(item.status == status for item in ctx.todos) for status in MARKS}
    if counts["completed"] == len(ctx.todos):
        advice = "Every item is completed."
    else:
        advice = "Keep it current; mark items completed as soon as they are done."
    summary = (
        f"Todo list updated: {counts['completed']} completed, {counts['in_progress']} in "
        f"progress, {counts['pending']} pending. {advice}"
    )
    return ToolOutput(f"{summary}\n\n{render_todos(ctx.todos)}", structured=structured)


def _as_data(todos: Sequence[TodoItem]) -> list[dict[str, str]]:
    return [
        {"content": item.content, "status": item.status, "activeForm": item.active_form}
        for item in todos
    ]
