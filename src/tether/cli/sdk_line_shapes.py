"""The shapes of Claude Code's stream-json message lines, field for field: an `assistant`
line (one content block), a `user` line (a message of tether's own, or one tool result with
its `tool_use_result`), a `stream_event` line; their uuids, times and reply ids."""

from __future__ import annotations

import datetime
import uuid
from typing import Any

from tether.cli.sdk_message_json import block_json
from tether.cli.tool_results import structured_result
from tether.core.lifecycle import stop_feedback_shown
from tether.protocol import Message, ToolFinished, ToolResultBlock, Usage
from tether.store.tool_result_context import own_output

Line = dict[str, Any]


def assistant_line(
    session_id: str,
    body: dict[str, Any],
    message_id: str,
    model: str,
    stop_reason: str | None,
    usage: Usage,
    parent: str | None,
    request_id: str | None = None,
) -> Line:
    """One content block of a reply (`body`), as its own `assistant` line."""
    line: Line = {
        "type": "assistant",
        "message": {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [body],
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": usage.model_dump(),
            "context_management": None,
        },
        "parent_tool_use_id": parent,
        "session_id": session_id,
        "uuid": new_uuid(),
        "timestamp": now(),
    }
    if request_id is not None:
        line["request_id"] = request_id  # the endpoint's, as Claude Code
    return line


def user_line(session_id: str, message: Message, parent: str | None) -> Line:
    """A user message of tether's own in the conversation (a reminder of an answer owed,
    words sent while the agent worked, the mark of an interruption)."""
    return {
        "type": "user",
        "message": {"role": "user", "content": [block_json(b) for b in message.content]},
        "parent_tool_use_id": parent,
        "session_id": session_id,
        "uuid": new_uuid(),
        "timestamp": now(),
    }


def stop_feedback_line(session_id: str, message: Message, parent: str | None) -> Line:
    """A Stop hook's feedback that sent the model back to work, as Claude Code shows it: its
    heading and text, without the reminder the model reads it in."""
    line = user_line(session_id, message, parent)
    line["message"]["content"] = [{"type": "text", "text": stop_feedback_shown(message.text())}]
    return line


def tool_result_line(
    session_id: str,
    block: ToolResultBlock,
    name: str,
    finished: ToolFinished | None,
    parent: str | None,
) -> Line:
    """One tool result (of the tool `name`), with its structured `tool_use_result`."""
    body = block_json(block)
    # The tool's output alone, as Claude Code shows it: what its hooks added (at the end of
    # its text, images after it) is the model's and the session file's attachments'.
    content = body["content"]
    if isinstance(content, str):
        body["content"] = own_output(content)
    elif content and content[0].get("type") == "text":
        content[0] = {**content[0], "text": own_output(content[0]["text"])}
    if name.startswith("mcp__") and not block.is_error:
        # As Claude Code gives an MCP tool's result: its blocks, and no error flag; a
        # failure as its text alone (flagged).
        if isinstance(body["content"], str):
            body["content"] = [{"type": "text", "text": body["content"]}]
        body["is_error"] = None
    return {
        "type": "user",
        "message": {"role": "user", "content": [body]},
        "parent_tool_use_id": parent,
        "session_id": session_id,
        "uuid": new_uuid(),
        "timestamp": now(),
        "tool_use_result": structured_result(block, finished),
    }


def stream_line(
    session_id: str, event: dict[str, Any], parent: str | None, message_id: str
) -> Line:
    """One streaming event of a reply (`--include-partial-messages`)."""
    return {
        "type": "stream_event",
        "event": event,
        "session_id": session_id,
        "parent_tool_use_id": parent,
        "uuid": new_uuid(),
        "api_message_id": message_id,
    }


def now() -> str:
    """The time of a line, as Claude Code writes it (UTC, milliseconds)."""
    moment = datetime.datetime.now(datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_uuid() -> str:
    return str(uuid.uuid4())


def new_message_id() -> str:
    """An id for a reply whose endpoint gave none, shaped as the Messages API's."""
    return f"msg_{uuid.uuid4().hex[:24]}"


def result_usage(usage: Usage) -> Line:
    """A turn's usage on its `result` line, with Claude Code's twelve keys: the counts the API
    gave, the searches and fetches its server tools ran (tether offers no fetch tool), the
    tokens the model thought with, the cache written split by lifetime and the service tier,
    as the API said them (as Claude Code, 0 and `standard` where it said none), and what Claude
    Code says of the region, speed and compaction iterations (tether asks for no region or
    fast mode)."""
    counts = usage.model_dump(
        exclude=(
            "web_search_requests",
            "thinking_tokens",
            "ephemeral_5m_input_tokens",
            "ephemeral_1h_input_tokens",
            "service_tier",
        )
    )
    return {
        **counts,
        "output_tokens_details": {"thinking_tokens": usage.thinking_tokens},
        "server_tool_use": {
            "web_search_requests": usage.web_search_requests,
            "web_fetch_requests": 0,
        },
        "service_tier": usage.service_tier or "standard",
        "cache_creation": {
            "ephemeral_1h_input_tokens": usage.ephemeral_1h_input_tokens or 0,
            "ephemeral_5m_input_tokens": usage.ephemeral_5m_input_tokens or 0,
        },
        "inference_geo": "",
        "iterations": [],
        "speed": "standard",
        "fallback_credit": None,
    }
