"""The hooks on a task's life: `TaskCreated` as TaskCreate makes one (exit 2 refuses it, and
it is removed), and the one gate every completion of a task passes: Claude Code's
`TaskCompleted` hooks, run before anything is recorded, whether an agent asks for the
completion (`TaskUpdate`) or a worker records its session's answer. Exit 2 (or a `block`
decision) refuses it, and the hook's reason goes back to the agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tether.hooks import HookRunner
from tether.store.task_records import Task

if TYPE_CHECKING:
    from tether.core.session import Session


async def completion_refusal(
    hooks: HookRunner | None, task: Task, *, owner: str, team: str
) -> str | None:
    """None when the hooks let the completion be recorded; else why they refused it."""
    if hooks is None or not hooks.has("TaskCompleted"):
        return None
    outcome = await hooks.fire(
        "TaskCompleted",
        {
            "task_id": task.id,
            "task_subject": task.subject,
            "task_description": task.description,
            "teammate_name": owner,
            "team_name": team,
        },
    )
    if outcome.blocked:
        return outcome.reason or "no reason given"
    return None


async def creation_refusal(
    hooks: HookRunner | None, task: Task, *, owner: str, team: str
) -> str | None:
    """Claude Code's `TaskCreated` hooks on a task just made (it has its id): None when they
    let it stand; else why they refused it (the caller removes it)."""
    if hooks is None or not hooks.has("TaskCreated"):
        return None
    payload = {
        "task_id": task.id,
        "task_subject": task.subject,
        "task_description": task.description,
        "teammate_name": owner,
        "team_name": team,
    }
    outcome = await hooks.fire("TaskCreated", payload)
    return (outcome.reason or "no reason given") if outcome.blocked else None


def refused_text(task_id: str, reason: str) -> str:
    return f"TaskCompleted hook refused to complete task #{task_id}: {reason}"


def session_hooks(session: Session) -> HookRunner | None:
    """The hooks a session runs (the project's own only when its workspace is trusted)."""
    gate = session.agent.gate
    return gate.hooks if gate is not None else None
