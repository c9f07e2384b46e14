"""A turn the model API refused (HTTP 4xx/5xx after retries), told to an SDK client as Claude
Code tells it: an assistant line of its own (model `<synthetic>`, the error as its text, `error`
naming its class for `AssistantMessage.error`), then a result that is `is_error` with
`api_error_status`, `api_error_type` and `terminal_reason: "api_error"` (subtype `success`, as
Claude Code's: the turn ran, the API refused)."""

from __future__ import annotations

import datetime
import uuid
from typing import Any

from tether.protocol import TurnFinished, Usage

Line = dict[str, Any]


PROMPT_TOO_LONG = "Prompt is too long"
"""How a prompt past the model's window is told (as Claude Code tells it: not as `API Error`)."""


REQUEST_TOO_LARGE = (
    "Request too large (max 32MB). Accumulated images and attachments in the conversation "
    "pushed the request over the limit. Remove older images or compact the conversation."
)
"""How an HTTP 413 is told (Claude Code's words): the request's bytes, not its tokens."""


def _too_long(finished: TurnFinished) -> bool:
    return (finished.error or finished.result).startswith(PROMPT_TOO_LONG)


def error_class(status: int, finished: TurnFinished | None = None) -> str:
    """The SDK's `AssistantMessageError` for an HTTP status, as Claude Code picks it."""
    if (finished is not None and _too_long(finished)) or status == 413:
        return "invalid_request"
    if status in (401, 403):
        return "authentication_failed"
    if status == 402:
        return "billing_error"
    if status == 429:
        return "rate_limit"
    if status >= 500:
        return "server_error"
    return "unknown"


def error_text(finished: TurnFinished) -> str:
    """What the assistant line and the result say, as Claude Code: `API Error: 400 ` and the
    API's message alone (tether's own line, with the endpoint, goes to stderr); a prompt too
    long is said as it is."""
    if _too_long(finished):
        return finished.error or finished.result
    if finished.api_error_status == 413:
        return REQUEST_TOO_LARGE
    said = finished.api_error_message or finished.error or finished.result
    return f"API Error: {finished.api_error_status} {said}"


def assistant_line(finished: TurnFinished, session_id: str) -> Line:
    status = finished.api_error_status
    assert status is not None
    return {
        "type": "assistant",
        "message": {
            "id": str(uuid.uuid4()),
            "type": "message",
            "role": "assistant",
            "model": "<synthetic>",
            "content": [{"type": "text", "text": error_text(finished)}],
            "stop_reason": "stop_sequence",
            "stop_sequence": "",
            "usage": Usage().model_dump(),
            "context_management": None,
        },
        "parent_tool_use_id": None,
        "session_id": session_id,
        "uuid": str(uuid.uuid4()),
        "timestamp": datetime.datetime.now(datetime.UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z"),
        "error": error_class(status, finished),
        "is_api_error_message": True,
        "api_error_status": status,
        "api_error_type": finished.api_error_type,
    }


def result_fields(finished: TurnFinished) -> Line:
    """What the result line says differently for an API error."""
    return {
        "subtype": "success",
        "is_error": True,
        "result": error_text(finished),
        "stop_reason": "stop_sequence",
        "terminal_reason": "api_error",
        "api_error_status": finished.api_error_status,
        "api_error_type": finished.api_error_type,
    }
