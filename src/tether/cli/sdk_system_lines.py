"""Claude Code's `system` stream-json lines that report on a session beside its messages: state
changes (for the SDK host), what it is busy with (`status`), denials, hooks as they run,
retries of a model call, a switch to the fallback model, a compaction; and tether's own
`notice` line for a warning."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from tether.hooks import HookActivity
from tether.protocol import (
    ContextCompacted,
    ModelRetry,
    PermissionDenial,
    StatusChanged,
)

Line = dict[str, Any]


@dataclass(frozen=True)
class SystemLines:
    session_id: str

    def state(self, state: str) -> Line:
        """`session_state_changed`: running, requires_action, idle. Marked for the SDK host
        only, which reads it to know when a run is over and keeps it from its caller."""
        return {
            "type": "system",
            "subtype": "session_state_changed",
            "state": state,
            "sdk_host_only": True,
            "uuid": _uuid(),
            "session_id": self.session_id,
        }

    def notice(self, message: str) -> Line:
        """A warning the user should hear (the session file cannot be written, a server did
        not start): what stderr says, for a client that reads only stdout. tether's own
        subtype; clients keep system lines they do not know as they are."""
        return {
            "type": "system",
            "subtype": "notice",
            "level": "warning",
            "message": message,
            "uuid": _uuid(),
            "session_id": self.session_id,
        }

    def informational(self, content: str) -> Line:
        """Claude Code's `informational` line: what the user is told of a step tether took on
        its own (the turn going on after a refusal), and a hook's `systemMessage`."""
        return {
            "type": "system",
            "subtype": "informational",
            "content": content,
            "level": "notice",
            "uuid": _uuid(),
            "session_id": self.session_id,
        }

    def prompt_blocked(self, content: str, reason: str, kept: bool = False) -> Line:
        """A UserPromptSubmit hook blocked the prompt (dropped) or stopped it (`continue:
        false`: kept): Claude Code's `informational` warning, with what became of the prompt
        and that the turn goes no further."""
        return {
            "type": "system",
            "subtype": "informational",
            "content": content,
            "level": "warning",
            "prevent_continuation": True,
            "prompt_submit_outcome": {
                "kind": "stopped_by_hook" if kept else "blocked_by_hook",
                "prompt_kept": kept,
                "reason": reason,
            },
            "uuid": _uuid(),
            "session_id": self.session_id,
        }

    def compacted(self, event: ContextCompacted) -> Line:
        """The conversation was compacted: Claude Code's `compact_boundary` line."""
        return {
            "type": "system",
            "subtype": "compact_boundary",
            "compact_metadata": {"trigger": event.trigger, "pre_tokens": event.pre_tokens},
            "uuid": _uuid(),
            "session_id": self.session_id,
        }

    def status(self, event: StatusChanged) -> Line:
        """Claude Code's `status` line: what the session is busy with (None: a compaction
        over, with how it went)."""
        line: Line = {"type": "system", "subtype": "status", "status": event.status}
        if event.compact_result is not None:
            line["compact_result"] = event.compact_result
        return {**line, "uuid": _uuid(), "session_id": self.session_id}

    def retry(self, event: ModelRetry) -> Line:
        """A model call tried again: the `api_retry` line."""
        return {
            "type": "system",
            "subtype": "api_retry",
            "attempt": event.attempt,
            "max_retries": event.max_attempts - 1,
            "retry_delay_ms": int(event.delay_s * 1000),
            "error_status": event.status,
            "error": _error_kind(event.status),
            "session_id": self.session_id,
            "uuid": _uuid(),
        }

    def fallback(self, original: str, fallback: str) -> Line:
        """The session moved to its fallback model: Claude Code's `model_fallback` line."""
        return {
            "type": "system",
            "subtype": "model_fallback",
            "trigger": "overloaded",
            "original_model": original,
            "fallback_model": fallback,
            "content": f"Switched to {fallback} due to high demand for {original}",
            "session_id": self.session_id,
            "uuid": _uuid(),
        }

    def denied(self, denial: PermissionDenial) -> list[Line]:
        """`permission_denied`, as Claude Code writes it: right after the call was denied
        (before its result), and only when a rule or the mode denied it; a hook's denial and
        the user's (the client's `can_use_tool`) have none."""
        if denial.decided_by not in ("rule", "mode"):
            return []
        line = {
            "type": "system",
            "subtype": "permission_denied",
            "tool_name": denial.tool_name,
            "tool_use_id": denial.tool_use_id,
            "decision_reason_type": denial.decided_by,
            "message": denial.reason,
            "uuid": _uuid(),
            "session_id": self.session_id,
        }
        return [line]

    def hook(self, activity: HookActivity) -> Line:
        spec = activity.spec
        name = f"{spec.event}:{activity.subject}" if activity.subject else spec.event
        line: Line = {
            "type": "system",
            "subtype": "hook_started" if activity.outcome is None else "hook_response",
            "hook_id": activity.hook_id,
            "hook_name": name,
            "hook_event": spec.event,
            "uuid": _uuid(),
            "session_id": self.session_id,
        }
        if activity.outcome is not None:
            failed = activity.outcome.blocked or bool(activity.outcome.errors)
            line.update(
                output=activity.stdout + activity.stderr,
                stdout=activity.stdout,
                stderr=activity.stderr,
                outcome="error" if failed else "success",
            )
            if activity.exit_code is not None:
                line["exit_code"] = activity.exit_code
        return line


def _error_kind(status: int | None) -> str:
    """Claude Code's word for why a model call is retried."""
    if status is None:
        return "connection_error"
    if status == 529:
        return "overloaded"
    if status == 429:
        return "rate_limit"
    if status >= 500:
        return "server_error"
    return "timeout" if status == 408 else "unknown"


def _uuid() -> str:
    return str(uuid.uuid4())
