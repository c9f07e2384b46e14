"""What the checks of both APIs' requests share: the `Rejection` they answer with, the
surrogate check of a body, and vLLM's refusal of a reply that cannot fit the window."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from tether.testing.tokens import estimate_prompt_tokens

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class Rejection:
    """Why a request is refused. `param` and `code` are OpenAI's extra error fields."""

    message: str
    status: int = 400
    error_type: str = "invalid_request_error"
    param: str | None = None
    code: str | None = None


def lone_surrogate(raw: bytes, parsed: object) -> str | None:
    """The APIs' complaint about a body whose JSON escapes a lone surrogate (`\\ud800` with no
    low half): valid to Python's decoder, refused by theirs. None when there is none."""
    if re.search(rb"\\u[dD][89a-fA-F]", raw) is None:  # cheap: most bodies have no such escape
        return None
    stack: list[object] = [parsed]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return "The request body is not valid JSON: no low surrogate in string"
        elif isinstance(item, dict):
            stack.extend(cast(dict[object, object], item).keys())
            stack.extend(cast(dict[object, object], item).values())
        elif isinstance(item, list):
            stack.extend(cast(list[object], item))
    return None


def json_list(value: object) -> list[Any] | None:
    return cast(list[Any], value) if isinstance(value, list) else None


def json_dicts(value: object) -> list[dict[str, Any]]:
    return [cast(dict[str, Any], v) for v in json_list(value) or [] if isinstance(v, dict)]


def output_past_window(
    body: Mapping[str, Any], context_window: int, factor: float = 1.0
) -> Rejection | None:
    """vLLM's refusal of a request whose prompt and room for the reply (`max_tokens`)
    together pass the window."""
    room = body.get("max_tokens") or body.get("max_completion_tokens") or 0
    tokens = estimate_prompt_tokens(body, factor)
    if not isinstance(room, int) or tokens + room <= context_window:
        return None
    return Rejection(
        f"This model's maximum context length is {context_window} tokens. However, you "
        f"requested {tokens + room} tokens ({tokens} in the messages, {room} in the "
        "completion). Please reduce the length of the messages or completion.",
        param="messages",
        code="context_length_exceeded",
    )
