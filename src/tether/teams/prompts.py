"""What a worker tells the model about its task, and what it records back on the board."""

from __future__ import annotations

from dataclasses import dataclass

from tether.protocol import PermissionDenial, TurnFinished
from tether.store.task_records import Task
from tether.teams.lifecycle import Closed

RESULT_LIMIT = 2_000
"""Characters of a dependency's result quoted in a task's prompt."""


def task_prompt(task: Task, inputs: list[Task], *, branch: str | None) -> str:
    """The first message of a task's session: the task, what its dependencies produced, and
    where it works."""
    parts = [f"You are working on task #{task.id}: {task.subject}"]
    if task.description:
        parts.append(task.description)
    for dep in inputs:
        result = (dep.result or "").strip()
        if len(result) > RESULT_LIMIT:
            result = result[:RESULT_LIMIT] + " [...]"
        parts.append(f"Task #{dep.id} ({dep.subject}), which this one depends on, reported:")
        parts[-1] += f"\n{result}"
    if branch is not None:
        parts.append(
            f"You work in a git worktree of your own, on branch {branch}. Your changes are "
            "committed on it for you when you finish: do not commit, merge or switch branches."
        )
    parts.append(
        "Work without asking questions: nobody is there to answer them, and what no rule "
        "allows is denied. When you are done, answer with a short report of what you did; it "
        "is recorded as the task's result. If the task cannot be done, mark it failed with "
        f"TaskUpdate (taskId {task.id}, status failed, result saying why)."
    )
    return "\n\n".join(parts)


@dataclass(frozen=True)
class Outcome:
    """What else a task's run left to record beside its session's answer."""

    closed: Closed | None = None
    branch: str | None = None
    warnings: tuple[str, ...] = ()
    """The worktree's pre-flight warnings."""
    denials: tuple[PermissionDenial, ...] = ()
    all_denied: bool = False
    """Every tool call the session made was denied."""
    refused: str | None = None
    """Why the TaskCompleted hooks refused the completion, when they still did at the end."""
    unclosed: str | None = None
    """Why the task's worktree could not be closed after its session ran."""


def task_result(
    finished: TurnFinished | None, error: str | None, outcome: Outcome
) -> tuple[str, bool]:
    """The text recorded on the task, and whether it is a completion (else a failure)."""
    if error is not None:
        text, ok = f"could not run: {error}", False
    elif outcome.unclosed is not None:
        text = (
            "its session ran, but its worktree could not be closed (its work committed on its "
            f"branch, the worktree removed): {outcome.unclosed}"
        )
        answer = finished.result if finished is not None else None
        text, ok = (f"{text}. The session's answer: {answer}" if answer else text), False
    elif finished is None:
        text, ok = "the session ended before its turn finished", False
    elif finished.is_error:
        text, ok = finished.result or finished.error or finished.subtype, False
    elif outcome.all_denied:
        count = len(outcome.denials)
        text = f"nothing was done: every tool call ({count}) was denied"
        text, ok = (
            (f"{text}. The session's answer: {finished.result}" if finished.result else text),
            False,
        )
    elif outcome.refused is not None:
        text = f"TaskCompleted hook refused the completion: {outcome.refused}"
        text, ok = (
            (f"{text}. The session's answer: {finished.result}" if finished.result else text),
            False,
        )
    else:
        text, ok = finished.result, True
    notes = [
        *_denials(outcome.denials),
        *_worktree(outcome.closed, outcome.branch),
        *_warnings(outcome.warnings),
    ]
    return ("\n\n".join([text, *notes]) if notes else text), ok


def _warnings(warnings: tuple[str, ...]) -> list[str]:
    if not warnings:
        return []
    return ["Worktree warnings:\n" + "\n".join(f"- {w}" for w in warnings)]


def _denials(denials: tuple[PermissionDenial, ...]) -> list[str]:
    if not denials:
        return []
    lines = [f"- {d.tool_name}{_what(d)}: {d.reason}" for d in denials]
    return ["Denied (no rule allowed them; a worker cannot ask):\n" + "\n".join(lines)]


def _what(denial: PermissionDenial) -> str:
    tool_input = denial.tool_input
    for key in ("command", "file_path", "path", "url", "pattern"):
        value = tool_input.get(key)
        if isinstance(value, str):
            return f"({value})"
    return ""


def _worktree(closed: Closed | None, branch: str | None) -> list[str]:
    if closed is None:
        return []
    where = f"on {branch}" if closed.branch_kept and branch else "(branch deleted: merged)"
    earlier = closed.unmerged - (closed.commit is not None)
    if closed.commit is None and earlier <= 0:
        work = "no changes"
    elif closed.commit is None:
        tip = f", last {closed.tip[:12]}" if closed.tip else ""
        work = (
            f"no changes in this run; {branch or 'its branch'} holds {earlier} unmerged "
            f"commit(s) of this task's earlier work{tip}"
        )
    else:
        work = f"committed {closed.commit[:12]} {where}"
        if earlier > 0:
            work += f", after {earlier} unmerged commit(s) of this task's earlier work"
    lines = [f"Worktree: {work}"]
    if closed.overlaps:
        lines.append("Files other task branches changed too (merging may conflict):")
        lines.extend(f"- {o.describe()}" for o in closed.overlaps)
    lines.extend(f"- {note}" for note in closed.notes)
    return ["\n".join(lines)]
