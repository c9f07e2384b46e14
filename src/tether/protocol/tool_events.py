"""A session's events about tool calls: a call started and finished, a permission question
asked, and why a call was denied. Part of the `Event` union (`events.py`)."""

from __future__ import annotations

from typing import Any, Final, Literal

from tether.protocol.line_counts import changed_lines
from tether.protocol.record import Record

DenialSource = Literal["rule", "mode", "hook", "user"]


class PermissionDenial(Record):
    """A call that did not run because it was denied (by a rule, a hook, or the user)."""

    __slots__ = ("decided_by", "reason", "tool_input", "tool_name", "tool_use_id")
    tool_name: Final[str]
    tool_use_id: Final[str]
    tool_input: Final[dict[str, Any]]
    reason: Final[str]
    decided_by: Final[DenialSource]
    """What denied it: a deny rule, the permission mode (dontAsk, plan, nobody to ask), a
    hook, or the user (or the client answering for them)."""

    def __init__(
        self,
        *,
        tool_name: str,
        tool_use_id: str,
        tool_input: dict[str, Any],
        reason: str,
        decided_by: DenialSource,
    ) -> None:
        self.tool_name = tool_name
        self.tool_use_id = tool_use_id
        self.tool_input = tool_input
        self.reason = reason
        self.decided_by = decided_by


class ToolStarted(Record):
    __slots__ = ("call_id", "input", "kind", "name")
    kind: Final[Literal["tool_started"]]
    call_id: Final[str]
    name: Final[str]
    input: Final[dict[str, Any]]

    def __init__(
        self,
        *,
        call_id: str,
        name: str,
        input: dict[str, Any],
        kind: Literal["tool_started"] = "tool_started",
    ) -> None:
        self.kind = kind
        self.call_id = call_id
        self.name = name
        self.input = input


class ToolFinished(Record):
    """`diff`: Unified diff of a file change, for display.

    `structured`: What the call did, as JSON data in Claude Code's shape for the tool (its
    `tool_use_result`); None for an error, or a tool whose text says it all.

    `denial`: Why the call did not run, when it was denied."""

    __slots__ = (
        "call_id",
        "content",
        "denial",
        "diff",
        "duration_ms",
        "is_error",
        "kind",
        "name",
        "structured",
    )
    kind: Final[Literal["tool_finished"]]
    call_id: Final[str]
    name: Final[str]
    content: Final[str]
    is_error: Final[bool]
    diff: Final[str | None]
    duration_ms: Final[int]
    structured: Final[Any]
    denial: Final[PermissionDenial | None]

    def __init__(
        self,
        *,
        call_id: str,
        name: str,
        content: str,
        is_error: bool,
        kind: Literal["tool_finished"] = "tool_finished",
        diff: str | None = None,
        duration_ms: int = 0,
        structured: Any = None,
        denial: PermissionDenial | None = None,
    ) -> None:
        self.kind = kind
        self.call_id = call_id
        self.name = name
        self.content = content
        self.is_error = is_error
        self.diff = diff
        self.duration_ms = duration_ms
        self.structured = structured
        self.denial = denial

    def lines_changed(self) -> tuple[int, int]:
        """The lines the call's change added and removed, as Claude Code counts them, from
        its `structuredPatch` (as a resumed session counts them again from the session
        file); (0, 0) for a call that changed no file."""
        if self.is_error:
            return 0, 0
        return changed_lines(self.structured)


def diff_line_counts(diff: str) -> tuple[int, int]:
    """The lines a unified diff's hunks add and remove (its `---`/`+++` file headers, which
    come before the first hunk, not counted)."""
    added = removed = 0
    in_hunks = False
    for line in diff.splitlines():
        if line.startswith("@@"):
            in_hunks = True
        elif in_hunks and line.startswith("+"):
            added += 1
        elif in_hunks and line.startswith("-"):
            removed += 1
    return added, removed


class PermissionAsked(Record):
    """A tool call needs the user's approval; answer with the `PermissionAnswer` op.

    `suggestion`: The rule an 'always allow' answer would add.

    `suggestions`: Claude Code's permission updates offered for this call (the rule, a
    directory, a mode), as a client or a PermissionRequest hook reads them.

    `by_mode`: Asked because of the permission mode (plan), not a rule.

    `agent_id`: The subagent whose call it is; None: the session's agent."""

    __slots__ = (
        "agent_id",
        "by_mode",
        "call_id",
        "input",
        "kind",
        "reason",
        "request_id",
        "suggestion",
        "suggestions",
        "tool",
    )
    kind: Final[Literal["permission_asked"]]
    request_id: Final[str]
    call_id: Final[str]
    tool: Final[str]
    input: Final[dict[str, Any]]
    reason: Final[str]
    suggestion: Final[str | None]
    suggestions: Final[list[dict[str, Any]]]
    by_mode: Final[bool]
    agent_id: Final[str | None]

    def __init__(
        self,
        *,
        request_id: str,
        call_id: str,
        tool: str,
        input: dict[str, Any],
        reason: str,
        kind: Literal["permission_asked"] = "permission_asked",
        suggestion: str | None = None,
        suggestions: list[dict[str, Any]] | None = None,
        by_mode: bool = False,
        agent_id: str | None = None,
    ) -> None:
        self.kind = kind
        self.request_id = request_id
        self.call_id = call_id
        self.tool = tool
        self.input = input
        self.reason = reason
        self.suggestion = suggestion
        self.suggestions = [] if suggestions is None else suggestions
        self.by_mode = by_mode
        self.agent_id = agent_id
