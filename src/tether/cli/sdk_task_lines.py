"""Claude Code's `system` lines about a subagent's task, as it writes them: `task_started`; a
`task_progress` after each of its replies that calls a tool (what it is doing, its tokens, tool
uses and time so far); `task_updated` and `task_notification` when it ends; and for one run in
the background, `background_tasks_changed` (the tasks still running) as it starts and ends."""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

from tether.protocol import SubagentFinished, SubagentMessage, SubagentStarted, Usage

Line = dict[str, Any]
TASK_NOTIFICATION_ORIGIN: dict[str, Any] = {"kind": "task-notification", "producer": "session-task"}
"""The `origin` of a turn's result when a background task's end started the turn (the SDK's
`MessageOrigin`), as Claude Code's."""


class _Task:
    __slots__ = ("background", "call_id", "description", "kind", "started", "tokens", "tool_uses")

    def __init__(self, event: SubagentStarted) -> None:
        self.call_id = event.call_id
        self.kind = event.agent_type
        self.description = event.description
        self.background = event.background
        self.started = time.monotonic()
        self.tool_uses = 0
        self.tokens = 0
        """Its newest reply's context and output: its size, as Claude Code counts it."""


class SubagentTasks:
    """The task lines of a session's subagents, with what they need of each one's past."""

    def __init__(self, session_id: str) -> None:
        self.session_id = session_id
        self._tasks: dict[str, _Task] = {}

    def started(self, event: SubagentStarted) -> list[Line]:
        task = self._tasks[event.agent_id] = _Task(event)
        line = self._line(
            "task_started",
            task_id=event.agent_id,
            tool_use_id=event.call_id,
            description=event.description,
            subagent_type=event.agent_type,
            is_backgrounded=event.background,  # else the Task call waits for it
            task_type="local_agent",
            prompt=event.prompt,
        )
        return [self._background_changed(), line] if task.background else [line]

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
                    task_id=event.agent_id,
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
        task = self._tasks.pop(event.agent_id, None)
        updated = self._line(
            "task_updated",
            task_id=event.agent_id,
            patch={"status": ended, "end_time": int(time.time() * 1000)},
        )
        notification = self._line(
            "task_notification",
            task_id=event.agent_id,
            tool_use_id=event.call_id,
            status=event.status,
            output_file="",
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
        tasks = [
            {
                "task_id": agent_id,
                "task_type": "local_agent",
                "subagent_type": task.kind,
                "description": task.description,
            }
            for agent_id, task in self._tasks.items()
            if task.background
        ]
        return self._line("background_tasks_changed", tasks=tasks)

    def _line(self, subtype: str, **fields: Any) -> Line:
        return {
            "type": "system",
            "subtype": subtype,
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
