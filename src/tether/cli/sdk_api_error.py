"""A turn the model API refused (HTTP 4xx/5xx after retries), told to an SDK client as Claude
Code tells it: an assistant line of its own (model `<synthetic>`, the error as its text, `error`
naming its class for `AssistantMessage.error`), then a result that is `is_error` with
`api_error_status`, `api_error_type` and `terminal_reason: "api_error"` (subtype `success`, as
Claude Code's: the turn ran, the API refused)."""

from __future__ import annotations

import datetime
import os
import uuid
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

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


INVALID_KEY = "Invalid API key \u00b7 Fix external API key"
"""How a refused key (HTTP 401) is told (Claude Code's words for a key given to it, as every
key tether uses is: from the environment or settings, not a login of its own)."""

TOO_LARGE_ERROR = {"api_error": "request_too_large"}
"""What the assistant line and the result add for an HTTP 413 (as Claude Code's do)."""


SERVER_SIDE = "This is a server-side issue, usually temporary \u2014 try again in a moment."
"""What Claude Code adds to a 5xx's words, before where to look if it persists."""

STATUS_PAGE = "https://status.claude.com"
"""Where Claude Code sends a user whose Anthropic endpoint keeps failing."""


def gateway(base_url: str | None) -> str | None:
    """The host of a model endpoint that is not Anthropic's own (a gateway, a proxy, another
    vendor), as Claude Code names it in a server error; None for Anthropic's API."""
    if not base_url:
        return None
    host = urlsplit(base_url).netloc or base_url
    name = host.rsplit("@", 1)[-1].split(":", 1)[0].lower()
    return None if name == "anthropic.com" or name.endswith(".anthropic.com") else host


def error_class(status: int, finished: TurnFinished | None = None) -> str:
    """The SDK's `AssistantMessageError` for an HTTP status, as Claude Code picks it."""
    if (finished is not None and _too_long(finished)) or status == 413:
        return "invalid_request"
    if status == 404:
        return "model_not_found"
    if status in (401, 403):
        return "authentication_failed"
    if status == 402:
        return "billing_error"
    if status == 429:
        return "rate_limit"
    if status >= 500:
        return "server_error"
    return "unknown"


HINTED_ENTRYPOINTS = frozenset({"sdk-cli", "claude-code-github-action"})
"""The `CLAUDE_CODE_ENTRYPOINT`s Claude Code tells where a missing model is picked (a shell's
`-p`, whose entrypoint it sets to `sdk-cli` when none is given; a GitHub action): under an SDK
(`sdk-py`, `sdk-ts`) the program, not a flag, names the model, and the hint is left out."""


def model_switch_hint(environ: Mapping[str, str] = os.environ) -> str:
    """What a 404's words end with: how to pick another model, where a user can."""
    entrypoint = environ.get("CLAUDE_CODE_ENTRYPOINT") or "sdk-cli"
    return " Run --model to pick a different model." if entrypoint in HINTED_ENTRYPOINTS else ""


def error_text(finished: TurnFinished, model_id: str, endpoint: str | None) -> str:
    """What the assistant line, the result and text mode's stdout say, in Claude Code's words:
    `API Error: 400 ` and the API's message alone (tether's own line, with the endpoint, goes
    to stderr); a refused key as an invalid key, a refused permission as a failed
    authentication; a 404 as a model that
    may not exist (`model_id`, the model asked for); a 5xx as a passing server fault, with
    where to look (the gateway `endpoint`, or Anthropic's status page). A prompt too long is
    said as it is."""
    if _too_long(finished):
        return finished.error or finished.result
    status = finished.api_error_status
    said = finished.api_error_message or finished.error or finished.result
    if status == 413:
        return REQUEST_TOO_LARGE
    if status == 404:
        return (
            f"There's an issue with the selected model ({model_id}). It may not exist or you "
            f"may not have access to it.{model_switch_hint()}"
        )
    if status == 401:
        return INVALID_KEY
    if status == 403:
        return f"Failed to authenticate. API Error: {status} {said}"
    if status == 429:
        return f"API Error: Request rejected (429) \u00b7 {said}"
    if status is not None and status >= 500:
        where = gateway(endpoint)
        check = f"your inference gateway ({where})" if where else STATUS_PAGE
        bare = said.rstrip(".!?\u2026")  # Claude Code ends the API's sentence with its own stop
        return f"API Error: {status} {bare}. {SERVER_SIDE} If it persists, check {check}."
    return f"API Error: {status} {said}"


def assistant_line(
    finished: TurnFinished, session_id: str, model_id: str, endpoint: str | None
) -> Line:
    status = finished.api_error_status
    assert status is not None
    return {
        "type": "assistant",
        "message": {
            "id": str(uuid.uuid4()),
            "type": "message",
            "role": "assistant",
            "model": "<synthetic>",
            "content": [{"type": "text", "text": error_text(finished, model_id, endpoint)}],
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
        **(TOO_LARGE_ERROR if status == 413 else {}),
        "api_error_type": finished.api_error_type,
    }


def result_fields(finished: TurnFinished, model_id: str, endpoint: str | None) -> Line:
    """What the result line says differently for an API error."""
    return {
        "subtype": "success",
        "is_error": True,
        "result": error_text(finished, model_id, endpoint),
        "stop_reason": "stop_sequence",
        # Claude Code files a 413 under images, the attachments that make a request that big.
        "terminal_reason": "image_error" if finished.api_error_status == 413 else "api_error",
        "api_error_status": finished.api_error_status,
        "api_error_type": finished.api_error_type,
        **(TOO_LARGE_ERROR if finished.api_error_status == 413 else {}),
    }
