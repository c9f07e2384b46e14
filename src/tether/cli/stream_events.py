"""A session's events as the stream-json front end writes them (`tether.cli.stream_json`):
the lines each event makes (`tether.cli.sdk_lines`), and whether it is also told on stderr.
The events that make the front end act (a permission question, a turn's end) are its own."""

from __future__ import annotations

from typing import Any

from tether.cli.sdk_lines import LineMaker
from tether.protocol import (
    BlockCompleted,
    ContextCompacted,
    Event,
    MessageCompleted,
    ModelRetry,
    Notice,
    ResponseStarted,
    StatusChanged,
    SubagentFinished,
    SubagentMessage,
    SubagentStarted,
    TextDelta,
    ThinkingDelta,
    ToolFinished,
    ToolInputDelta,
    ToolStarted,
)


def event_lines(event: Event, lines: LineMaker) -> tuple[list[dict[str, Any]], bool]:
    """The lines `event` makes, and whether stderr tells it too (a retry, a warning, and any
    event no line carries)."""
    match event:
        case TextDelta(text=piece):
            return lines.text(piece, "text"), False
        case ThinkingDelta(text=piece):
            return lines.text(piece, "thinking"), False
        case ToolInputDelta():
            return lines.tool_input(event), False
        case ResponseStarted():
            return lines.response_started(event), False
        case ModelRetry():
            return lines.retry(event), True
        case BlockCompleted():
            return lines.block_completed(event), False
        case MessageCompleted():
            return lines.completed(event), False
        case ToolStarted():
            lines.tool_started(event)
            return [], False
        case ToolFinished():
            return lines.tool_finished(event), False
        case SubagentStarted() | SubagentMessage() | SubagentFinished():
            return lines.subagent(event), False
        case ContextCompacted():
            return [lines.system.compacted(event)], False
        case StatusChanged():
            return lines.status(event), False
        case Notice(blocked_reason=str(reason)):
            return [lines.system.prompt_blocked(event.message, reason, event.kept)], True
        case Notice(level="warning", message=message) if event.for_client:
            return [lines.system.notice(message)], True
        case Notice(said_by=str(said_by)) if said_by:  # a hook's `systemMessage`
            return lines.hook_said(said_by, event.told), False
        case _:
            return [], True
