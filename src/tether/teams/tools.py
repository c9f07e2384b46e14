"""The task tools: Claude Code's `TaskCreate`, `TaskGet`, `TaskUpdate` and `TaskList` (its input
names, so its prompts and skills work) over the team's shared board, and `TaskNext`, which
claims the next task that is ready.

Marking a task `in_progress` claims it (a lease the session renews); `completed` records it
once, after the `TaskCompleted` hooks agreed (exit 2 refuses, and the reason comes back
here). What the board refuses (an unknown task, a cycle, a task held by another) is an error
result the model can act on; a store that cannot be reached stops the turn.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from tether.core.tool_calls import current_call
from tether.hooks import HookRunner
from tether.protocol import HarnessError, ToolError
from tether.store.task_graph import TaskChanges
from tether.store.task_records import (
    Claim,
    NewTask,
    Priority,
    StoreUnavailable,
    Task,
    TaskStoreError,
)
from tether.store.task_store import TaskStore
from tether.teams.board import TaskBoard
from tether.teams.completion import completion_refusal, creation_refusal, refused_text
from tether.tools.base import Tool, ToolOutput, tool
from tether.tools.context import ToolContext

T = TypeVar("T")

TASK_TOOL_NAMES = ("TaskCreate", "TaskGet", "TaskUpdate", "TaskList", "TaskNext")


class TaskCreateInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    subject: str = Field(description="A brief title for the task")
    description: str = Field(description="What needs to be done")
    activeForm: str | None = Field(
        default=None,
        description='Present continuous form shown while in_progress (e.g., "Running tests")',
    )
    metadata: dict[str, Any] | None = Field(default=None, description="Metadata to attach")
    priority: Priority = Field(default="medium", description="Claim order: high, medium, low")
    addBlockedBy: list[str] = Field(
        default_factory=list[str], description="Task IDs that must be completed before this one"
    )


class TaskIdInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    taskId: str = Field(description="The ID of the task")


class TaskUpdateInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    taskId: str = Field(description="The ID of the task to update")
    subject: str | None = Field(default=None, description="New subject for the task")
    description: str | None = Field(default=None, description="New description for the task")
    activeForm: str | None = Field(default=None, description="New present continuous form")
    status: Literal["pending", "in_progress", "completed", "failed", "deleted"] | None = Field(
        default=None,
        description="in_progress claims the task for you; completed records it (with result); "
        "failed gives up on it (result says why) and blocks what depends on it; pending gives "
        "it back; deleted removes it",
    )
    addBlocks: list[str] = Field(default_factory=list[str], description="Task IDs this task blocks")
    addBlockedBy: list[str] = Field(
        default_factory=list[str], description="Task IDs that block this task"
    )
    owner: str | None = Field(default=None, description="New owner for the task")
    metadata: dict[str, Any] | None = Field(
        default=None,
        description="Metadata keys to merge into the task. Set a key to null to delete it.",
    )
    priority: Priority | None = Field(default=None, description="New priority")
    result: str | None = Field(
        default=None, description="With completed: what was done; with failed: why"
    )


_CHANGEABLE = (
    "subject",
    "description",
    "activeForm",
    "owner",
    "metadata",
    "priority",
    "addBlocks",
    "addBlockedBy",
)
_FIELD_NAMES = {"addBlocks": "blocks", "addBlockedBy": "blockedBy"}
"""How Claude Code names a changed field in `updatedFields`."""


class NoInput(BaseModel):
    model_config = ConfigDict(extra="forbid")


def task_tools(board: TaskBoard) -> list[Tool]:
    """The five task tools of a session working on `board`."""

    def store_call(step: Callable[[TaskStore], T]) -> Awaitable[T]:
        return on_store(board, step)

    @tool("TaskCreate", read_only=False)
    async def task_create(ctx: ToolContext, args: TaskCreateInput) -> ToolOutput:
        """Create a task on the team's shared task list (the board other agents and workers
        claim from). Give dependencies with addBlockedBy: the task is claimable only once they
        are completed. Returns the new task's id."""
        new = NewTask(
            subject=args.subject,
            description=args.description,
            active_form=args.activeForm,
            metadata=args.metadata or {},
            priority=args.priority,
            depends_on=[_id(d) for d in args.addBlockedBy],
        )
        task: Task = await store_call(lambda s: s.create(new))
        refused = await creation_refusal(_session_hooks(), task, owner=board.owner, team=board.team)
        if refused is not None:
            await store_call(lambda s: s.remove(task.id))
            raise ToolError(f"TaskCreated hook refused to create the task: {refused}")
        return ToolOutput(
            f"Task #{task.id} created successfully: {task.subject}",
            structured={"task": {"id": task.id, "subject": task.subject}},
        )

    @tool("TaskGet", read_only=True)
    async def task_get(ctx: ToolContext, args: TaskIdInput) -> ToolOutput:
        """Get a task by its ID: subject, description, status, dependencies, owner, result."""
        task: Task = await store_call(lambda s: s.get(_id(args.taskId)))
        return ToolOutput(describe(task), structured={"task": task_record(task)})

    @tool("TaskList", read_only=True)
    async def task_list(ctx: ToolContext, args: NoInput) -> ToolOutput:
        """List every task of the team's task list: id, status, subject, owner and what each
        waits for. Use it to find work, or to check progress."""
        tasks: list[Task] = await store_call(lambda s: s.list())
        lines = [_line(t, tasks) for t in tasks] or ["No tasks found"]
        return ToolOutput("\n".join(lines), structured={"tasks": [task_record(t) for t in tasks]})

    @tool("TaskNext", read_only=False)
    async def task_next(ctx: ToolContext, args: NoInput) -> ToolOutput:
        """Claim the next task that is ready (dependencies completed; highest priority, then
        oldest) so nobody else takes it. Work on it, then mark it completed (or failed) with
        TaskUpdate."""
        claim: Claim | None = await store_call(
            lambda s: s.claim_next(board.owner, lease_s=board.lease_s)
        )
        if claim is None:
            return ToolOutput("No task is ready to claim.", structured={"task": None})
        board.hold(claim)
        text = f"Claimed task #{claim.task_id} for {board.owner}.\n{describe(claim.task)}"
        return ToolOutput(text, structured={"task": task_record(claim.task)})

    @tool("TaskUpdate", read_only=False)
    async def task_update(ctx: ToolContext, args: TaskUpdateInput) -> ToolOutput:
        """Update a task: its fields, its dependencies (addBlocks, addBlockedBy), or its status.
        Set in_progress when you start one (it is then yours), completed with a result when it
        is fully done, failed with a result saying why when it cannot be done."""
        task_id = _id(args.taskId)
        before: Task = await store_call(lambda s: s.get(task_id))
        changes = TaskChanges(
            subject=args.subject,
            description=args.description,
            active_form=args.activeForm,
            priority=args.priority,
            owner=args.owner,
            metadata=args.metadata,
            add_depends_on=[_id(d) for d in args.addBlockedBy],
            add_blocks=[_id(d) for d in args.addBlocks],
        )
        fields = [
            _FIELD_NAMES.get(name, name)
            for name in _CHANGEABLE
            if getattr(args, name) not in (None, [])
        ]
        if fields:
            await store_call(lambda s: s.update(task_id, changes))
        after = before
        if args.status is not None and args.status != before.status:
            after = await _change_status(board, before, args.status, args.result)
            fields.append("status")
        structured: dict[str, Any] = {"success": True, "taskId": task_id, "updatedFields": fields}
        if after.status != before.status or args.status == "deleted":
            structured["statusChange"] = {"from": before.status, "to": args.status}
        text = f"Updated task #{task_id} " + (", ".join(fields) if fields else "(no changes)")
        return ToolOutput(text, structured=structured)

    return [task_create, task_get, task_update, task_list, task_next]


async def on_store(board: TaskBoard, step: Callable[[TaskStore], T]) -> T:
    """A store step: what the board refuses is told to the model; a store that cannot be
    used stops the turn, naming it."""
    try:
        return await board.call(step)
    except TaskStoreError as e:
        raise ToolError(str(e)) from None
    except StoreUnavailable as e:
        raise HarnessError(str(e)) from None


async def _change_status(board: TaskBoard, task: Task, status: str, result: str | None) -> Task:
    store_call = functools.partial(on_store, board)
    if status == "deleted":
        return await store_call(lambda s: s.remove(task.id))
    lent = board.lent_claim(task)
    held = board.claims.get(task.id) or lent
    if status == "in_progress":
        claim: Claim = await store_call(
            lambda s: s.claim(task.id, board.owner, lease_s=board.lease_s)
        )
        board.hold(claim)
        return claim.task
    if held is None and status == "completed" and task.status == "pending":
        held = await store_call(lambda s: s.claim(task.id, board.owner, lease_s=board.lease_s))
        board.hold(held)
    if held is None:
        raise ToolError(_not_yours(board, task))
    if status == "pending":
        if lent is not None:
            raise ToolError(
                f"task #{task.id} is the task this session was given to work on: finish it "
                "(TaskUpdate status completed with a result, or failed with a result saying "
                "why); it is given back to the board only if the worker is stopped"
            )
        board.let_go(task.id)
        return await store_call(lambda s: s.release(held))
    if status == "failed":
        board.let_go(task.id)
        return await store_call(lambda s: s.fail(held, result or "given up, no reason given"))
    await _completion_hooks(board, task)
    board.let_go(task.id)
    return await store_call(lambda s: s.complete(held, result or ""))


def _not_yours(board: TaskBoard, task: Task) -> str:
    if task.status == "in_progress":
        return (
            f"task #{task.id} is held by {task.owner}, not by {board.owner}: only its holder "
            "changes its status (until its lease runs out)"
        )
    if task.status in ("completed", "failed"):
        return f"task #{task.id} is already {task.status}"
    return f"task #{task.id} is not yours ({task.status}): set it in_progress first"


def _session_hooks() -> HookRunner | None:
    """The hooks of the session whose call runs now."""
    scope = current_call.get()
    gate = scope.agent.gate if scope is not None else None
    return gate.hooks if gate is not None else None


async def _completion_hooks(board: TaskBoard, task: Task) -> None:
    """TaskCompleted hooks, before anything is recorded: a block refuses the completion and
    its reason goes back to the model (the task stays in progress, still held)."""
    reason = await completion_refusal(_session_hooks(), task, owner=board.owner, team=board.team)
    if reason is not None:
        raise ToolError(refused_text(task.id, reason))


def _id(text: str) -> str:
    return text.strip().removeprefix("#")


def task_record(task: Task) -> dict[str, Any]:
    """A task in Claude Code's shape, with tether's fields beside it."""
    return {
        "id": task.id,
        "subject": task.subject,
        "description": task.description,
        "activeForm": task.active_form,
        "status": task.status,
        "owner": task.owner,
        "blocks": task.blocks,
        "blockedBy": task.depends_on,
        "metadata": task.metadata,
        "priority": task.priority,
        "result": task.result,
        "error": task.error,
        "blockedReason": task.blocked_reason,
        "attempts": task.attempts,
        "costUsd": task.cost_usd,
    }


def describe(task: Task) -> str:
    lines = [f"Task #{task.id}: {task.subject}", f"Status: {task.status}"]
    lines.append(f"Priority: {task.priority}" + (f"  Owner: {task.owner}" if task.owner else ""))
    lines.append(f"Description: {task.description}")
    if task.depends_on:
        lines.append("Blocked by: " + ", ".join(f"#{d}" for d in task.depends_on))
    if task.blocks:
        lines.append("Blocks: " + ", ".join(f"#{d}" for d in task.blocks))
    for label, value in (
        ("Blocked", task.blocked_reason),
        ("Result", task.result),
        ("Error", task.error),
    ):
        if value:
            lines.append(f"{label}: {value}")
    return "\n".join(lines)


def _line(task: Task, tasks: list[Task]) -> str:
    done = {t.id for t in tasks if t.status == "completed"}
    waiting = [d for d in task.depends_on if d not in done]
    owner = f" ({task.owner})" if task.owner else ""
    blocked = f" [blocked by {', '.join('#' + d for d in waiting)}]" if waiting else ""
    return f"#{task.id} [{task.status}] {task.subject}{owner}{blocked}"
