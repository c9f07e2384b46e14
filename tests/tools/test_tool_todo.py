"""TodoWrite: the plan kept in the session's context, and the reminder of its open items."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from tether.tools.builtin import builtin_tools
from tether.tools.context import TodoItem, ToolContext
from tether.tools.plan import render_todos, todo_reminder
from tether.tools.registry import ToolOutcome, ToolRegistry

RunTool = Callable[..., Awaitable[ToolOutcome]]

PLAN = [
    {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
    {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
    {"content": "Run the tests", "status": "pending", "activeForm": "Running the tests"},
]


async def test_a_valid_list_is_stored_and_shown(run_tool: RunTool, ctx: ToolContext) -> None:
    outcome = await run_tool("TodoWrite", todos=PLAN)
    assert outcome == ToolOutcome(
        "Todo list updated: 1 completed, 1 in progress, 1 pending. Keep it current; mark items "
        "completed as soon as they are done.\n"
        "\n"
        "☒ Read the code\n"
        "◐ Fix the bug\n"
        "☐ Run the tests",
        False,
    )
    assert ctx.todos == (
        TodoItem("Read the code", "completed", "Reading the code"),
        TodoItem("Fix the bug", "in_progress", "Fixing the bug"),
        TodoItem("Run the tests", "pending", "Running the tests"),
    )


async def test_each_call_replaces_the_whole_list(run_tool: RunTool, ctx: ToolContext) -> None:
    await run_tool("TodoWrite", todos=PLAN)
    done = [{**item, "status": "completed"} for item in PLAN[:2]]
    outcome = await run_tool("TodoWrite", todos=done)
    assert outcome.content == (
        "Todo list updated: 2 completed, 0 in progress, 0 pending. Every item is completed.\n"
        "\n"
        "☒ Read the code\n"
        "☒ Fix the bug"
    )
    assert ctx.todos == (
        TodoItem("Read the code", "completed", "Reading the code"),
        TodoItem("Fix the bug", "completed", "Fixing the bug"),
    )


async def test_two_items_in_progress_are_refused(run_tool: RunTool, ctx: ToolContext) -> None:
    await run_tool("TodoWrite", todos=PLAN)
    before = ctx.todos
    both = [PLAN[1], {**PLAN[2], "status": "in_progress"}]
    outcome = await run_tool("TodoWrite", todos=both)
    assert outcome == ToolOutcome(
        "Error: 2 items are in_progress (Fix the bug; Run the tests); at most one may be. "
        "Keep the one being worked on now in_progress, set the others to pending or completed, "
        "and send the whole list again.",
        True,
    )
    assert ctx.todos == before


async def test_an_unknown_status_is_refused_by_the_schema(
    run_tool: RunTool, ctx: ToolContext
) -> None:
    item = {"content": "Ship it", "status": "done", "activeForm": "Shipping it"}
    outcome = await run_tool("TodoWrite", todos=[item])
    assert outcome == ToolOutcome(
        "Error: Invalid input for TodoWrite: todos.0.status: Input should be 'pending', "
        "'in_progress' or 'completed' (got \"done\")",
        True,
    )
    assert ctx.todos == ()


async def test_blank_text_and_unknown_fields_are_refused(run_tool: RunTool) -> None:
    blank = await run_tool(
        "TodoWrite", todos=[{"content": "  ", "status": "pending", "activeForm": "Doing"}]
    )
    assert blank.is_error
    assert "todos.0.content: String should have at least 1 character" in blank.content
    missing = await run_tool("TodoWrite", todos=[{"content": "Do it", "status": "pending"}])
    assert missing == ToolOutcome(
        "Error: Invalid input for TodoWrite: missing required field 'todos.0.activeForm'", True
    )
    extra = await run_tool("TodoWrite", todos=[{**PLAN[0], "priority": "high"}])
    assert extra == ToolOutcome(
        "Error: Invalid input for TodoWrite: unexpected field 'todos.0.priority'", True
    )


async def test_an_empty_list_clears_the_plan(run_tool: RunTool, ctx: ToolContext) -> None:
    await run_tool("TodoWrite", todos=PLAN)
    outcome = await run_tool("TodoWrite", todos=[])
    assert outcome == ToolOutcome("Todo list cleared.", False)
    assert ctx.todos == ()


def test_the_tool_is_offered_read_only() -> None:
    registry = ToolRegistry(builtin_tools())
    todo = registry.get("TodoWrite")
    assert todo is not None
    assert todo.read_only
    item_schema = todo.spec().input_schema["$defs"]["TodoEntry"]
    assert list(item_schema["properties"]) == ["content", "status", "activeForm"]
    assert item_schema["properties"]["status"]["enum"] == ["pending", "in_progress", "completed"]


def test_reminder_names_open_items_in_progress_first() -> None:
    todos = [
        TodoItem("Write the docs", "pending", "Writing the docs"),
        TodoItem("Read the code", "completed", "Reading the code"),
        TodoItem("Fix the bug", "in_progress", "Fixing the bug"),
    ]
    assert todo_reminder(todos) == (
        "Your plan (TodoWrite) has open items: ◐ Fix the bug; ☐ Write the docs. Update it as you "
        "go: mark each item completed as soon as it is done."
    )


def test_reminder_is_capped() -> None:
    todos = [TodoItem(f"Step {n}", "pending", f"Doing step {n}") for n in range(1, 12)]
    shown = "; ".join(f"☐ Step {n}" for n in range(1, 9))
    assert todo_reminder(todos) == (
        f"Your plan (TodoWrite) has open items: {shown}; +3 more. Update it as you go: mark "
        "each item completed as soon as it is done."
    )


def test_no_reminder_without_open_items() -> None:
    assert todo_reminder([]) is None
    assert todo_reminder([TodoItem("Done", "completed", "Doing")]) is None


def test_render_marks_each_status() -> None:
    todos = [
        TodoItem("a", "completed", "A-ing"),
        TodoItem("b", "in_progress", "B-ing"),
        TodoItem("c", "pending", "C-ing"),
    ]
    assert render_todos(todos) == "☒ a\n◐ b\n☐ c"
