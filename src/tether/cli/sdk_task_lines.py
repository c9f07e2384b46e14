"""Claude Code's `system` lines about a session's tasks, as it writes them.

A subagent (`local_agent`): `task_started`; a `task_progress` after each of its replies that
calls a tool (what it is doing, its tokens, tool uses and time so far); `task_updated` and
`task_notification` when it ends. A background command (`local_bash`): `task_started`, then
`task_updated` and `task_notification` when it ends by itself or the client stops it. For one
run in the background, `background_tasks_changed` (the tasks still running) as it starts and
ends. Every line of a task carries its `run_id`.
"""

from __future__ import annotations

import os
import secrets
import time
import uuid
from typing import Any, Final, Literal

from tether.protocol import SubagentFinished, SubagentMessage, SubagentStarted, Usage

Line = dict[str, Any]
TASK_NOTIFICATION_ORIGIN: dict[str, Any] = {"kind": "task-notification", "producer": "session-task"}
"""The `origin` of a turn's result when a background task's end started the turn (the SDK's
`MessageOrigin`), as Claude Code's."""


def run_id() -> str:
    """A new id of one run of a task, in Claude Code's form: the time in base 36, a dash and
    eight hex digits (`0mx9nl2q8-8511c0c8`)."""
    digits, now = "", int(time.time() * 1000)
    while now:
        now, digit = divmod(now, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[digit] + digits
    return f"{digits:0>9}-{secrets.token_hex(4)}"


class _Task:
    __slots__ = (
        "background",
        "call_id",
        "depth",
        "description",
        "kind",
        "output_file",
        "run_id",
        "started",
        "task_type",
        "tokens",
        "tool_uses",
    )

    def __init__(
        self,
        task_type: Literal["local_agent", "local_bash"],
        call_id: str,
        description: str,
        *,
        kind: str = "",
        background: bool = True,
        depth: int = 0,
        output_file: str = "",
    ) -> None:
        self.task_type: Final[Literal["local_agent", "local_bash"]] = task_type
        self.call_id: Final = call_id
        self.description: Final = description
        self.kind: Final = kind
        """A subagent's type."""
        self.background: Final = background
        self.depth: Final = depth
        """How deep a subagent is nested: 1 for one the session's agent started."""
        self.output_file: Final = output_file
        self.run_id: Final = run_id()
        self.started = time.monotonic()
        self.tool_uses = 0
        self.tokens = 0
        """Its newest reply's context and output: its size, as Claude Code counts it."""


class TaskLines:
    """The task lines of a session's subagents and background commands, with what they need
    of each one's past."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self._tasks: dict[str, _Task] = {}
        self._ended_early: dict[str, tuple[int, str]] = {}
        """Commands whose end came before their start was told: exit status and output file."""

    def started(self, event: SubagentStarted) -> list[Line]:
        parent = self._tasks.get(event.parent_agent_id or "")
        task = self._tasks[event.agent_id] = _Task(
            "local_agent",
            event.call_id,
            event.description,
            kind=event.agent_type,
            background=event.background,
            depth=parent.depth + 1 if parent is not None else 1,
            output_file=event.output_file,
        )
        line = self._line(
            "task_started",
            event.agent_id,
            tool_use_id=event.call_id,
            description=event.description,
            subagent_type=event.agent_type,
            is_backgrounded=event.background,  # else the Task call waits for it
            spawn_depth=task.depth,
            task_type="local_agent",
            prompt=event.prompt,
        )
        return [self._background_changed(), line] if task.background else [line]

    def description(self, task_id: str) -> str | None:
        """What the running task `task_id` is for (None when it is not known)."""
        task = self._tasks.get(task_id)
        return task.description if task is not None else None

    def command_started(self, task_id: str, call_id: str, description: str) -> list[Line]:
        """A command Bash started in the background; if it has ended already, its end too."""
        self._tasks[task_id] = _Task("local_bash", call_id, description)
        started = self._line(
            "task_started",
            task_id,
            tool_use_id=call_id,
            description=description,
            is_backgrounded=True,
            task_type="local_bash",
        )
        lines = [self._background_changed(), started]
        if (ended := self._ended_early.pop(task_id, None)) is not None:
            lines += self.command_ended(task_id, *ended)
        return lines

    def command_ended(self, task_id: str, exit_code: int, output_file: str) -> list[Line]:
        """A background command ended by itself: failed unless its exit status is 0."""
        task = self._tasks.get(task_id)
        if task is None:  # its start is not told yet: told then
            self._ended_early[task_id] = (exit_code, output_file)
            return []
        if exit_code == 0:
            status, how = "completed", "completed (exit code 0)"
        else:
            status, how = "failed", f"failed with exit code {exit_code}"
        summary = f'Background command "{task.description}" {how}'
        return self._command_end(task_id, status, status, output_file, summary)

    def command_stopped(self, task_id: str, output_file: str) -> list[Line]:
        """A background command the client stopped (`stop_task`)."""
        task = self._tasks.get(task_id)
        summary = task.description if task is not None else ""
        return self._command_end(task_id, "killed", "stopped", output_file, summary)

    def _command_end(
        self, task_id: str, patch_status: str, status: str, output_file: str, summary: str
    ) -> list[Line]:
        task = self._tasks.get(task_id)
        updated = self._line(
            "task_updated",
            task_id,
            patch={"status": patch_status, "end_time": int(time.time() * 1000)},
        )
        notification = self._line(
            "task_notification",
            task_id,
            tool_use_id=task.call_id if task is not None else "",
            status=status,
            output_file=output_file,
            summary=summary,
        )
        self._tasks.pop(task_id, None)
        return [updated, notification, self._background_changed()]

    def progress(self, event: SubagentMessage) -> list[Line]:
        """One `task_progress` per tool the reply calls, once its lines are out."""
        task = self._tasks.get(event.agent_id)
        message = event.completed.message
        if task is None or message.role != "assistant":
            return []
        usage = event.completed.usage or Usage()
        task.tokens = usage.context_tokens + usage.output_tokens
        lines: list[Line] = []
        for call in message.tool_uses():
            task.tool_uses += 1
            lines.append(
                self._line(
                    "task_progress",
                    event.agent_id,
                    tool_use_id=task.call_id,
                    description=doing(call.name, call.input),
                    subagent_type=task.kind,
                    usage={
                        "total_tokens": task.tokens,
                        "tool_uses": task.tool_uses,
                        "duration_ms": int((time.monotonic() - task.started) * 1000),
                    },
                    last_tool_name=call.name,
                )
            )
        return lines

    def finished(self, event: SubagentFinished) -> list[Line]:
        """The task's state changes (`task_updated`), then its notification; a background
        one's end changes the set of background tasks."""
        usage = event.usage
        ended = "killed" if event.status == "stopped" else event.status
        updated = self._line(
            "task_updated",
            event.agent_id,
            patch={"status": ended, "end_time": int(time.time() * 1000)},
        )
        task = self._tasks.get(event.agent_id)
        notification = self._line(
            "task_notification",
            event.agent_id,
            tool_use_id=event.call_id,
            status=event.status,
            output_file=task.output_file if task is not None else "",
            summary=event.summary,
            usage={
                # as its progress counts them: the newest reply's (its whole run's, unknown)
                "total_tokens": task.tokens
                if task is not None and task.tokens
                else usage.context_tokens + usage.output_tokens,
                "tool_uses": event.tool_uses,
                "duration_ms": event.duration_ms,
            },
        )
        self._tasks.pop(event.agent_id, None)
        if task is None or not task.background:
            return [updated, notification]
        # As Claude Code says a background one's end: its answer is the report; stopped,
        # it is named by what it was for, with no usage.
        if event.status == "completed":
            notification["summary_is_report"] = True
        elif event.status == "stopped":
            notification["summary"] = task.description
            del notification["usage"]
        return [updated, notification, self._background_changed()]

    def _background_changed(self) -> Line:
        tasks: list[dict[str, Any]] = []
        for task_id, task in self._tasks.items():
            if not task.background:
                continue
            entry = {"task_id": task_id, "run_id": task.run_id, "task_type": task.task_type}
            if task.task_type == "local_agent":
                entry["subagent_type"] = task.kind
            tasks.append({**entry, "description": task.description})
        return self._line("background_tasks_changed", None, tasks=tasks)

    def _line(self, subtype: str, task_id: str | None, **fields: Any) -> Line:
        """A line; one about a task names it and its run first, as Claude Code's."""
        task = self._tasks.get(task_id) if task_id is not None else None
        about = {} if task_id is None else {"task_id": task_id}
        if task is not None:
            about["run_id"] = task.run_id
        return {
            "type": "system",
            "subtype": subtype,
            **about,
            **fields,
            "uuid": str(uuid.uuid4()),
            "session_id": self.session_id,
        }


_VERBS = {
    "Read": ("Reading", "file_path"),
    "Write": ("Writing", "file_path"),
    "Edit": ("Editing", "file_path"),
    "MultiEdit": ("Editing", "file_path"),
    "NotebookEdit": ("Editing", "notebook_path"),
    "Glob": ("Finding", "pattern"),
    "Grep": ("Searching for", "pattern"),
    "WebFetch": ("Fetching", "url"),
    "WebSearch": ("Searching for", "query"),
}


def doing(tool: str, tool_input: dict[str, Any]) -> str:
    """What a subagent's call is doing, in Claude Code's words ("Reading a.txt", "Running
    make"): a path relative to the working directory; a command by its description."""
    if tool == "Bash":
        said = tool_input.get("description") or tool_input.get("command")
        return f"Running {said}" if isinstance(said, str) and said else tool
    verb, field = _VERBS.get(tool, ("", ""))
    value = tool_input.get(field)
    if not verb or not isinstance(value, str) or not value:
        return tool
    if field.endswith("_path") and os.path.isabs(value):
        relative = os.path.relpath(value)
        value = value if relative.startswith("..") else relative
    return f"{verb} {value}"
