"""The rules the OpenAI Chat Completions API enforces on a request, with its error messages
(the Anthropic ones: `validation.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from tether.testing.effort_rules import openai_effort_problem
from tether.testing.image_rules import openai_images_problem
from tether.testing.request_rules import (
    TOOL_NAME,
    Rejection,
    json_dicts,
    json_list,
)
from tether.testing.tokens import estimate_prompt_tokens


def validate_openai(
    body: Mapping[str, Any], context_window: int, factor: float = 1.0
) -> Rejection | None:
    """Check a Chat Completions request the way the API does."""
    for name in ("model", "messages"):
        if name not in body:
            return Rejection(
                f"Missing required parameter: '{name}'.",
                param=name,
                code="missing_required_parameter",
            )
    messages = json_list(body["messages"])
    if messages is None:
        return Rejection(
            "Invalid type for 'messages': expected an array.", param="messages", code="invalid_type"
        )
    if not messages:
        return Rejection(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got "
            "an empty array instead.",
            param="messages",
            code="empty_array",
        )
    if (effort := openai_effort_problem(body)) is not None:
        return Rejection(effort[0], param="reasoning_effort", code=effort[1])
    for index, tool in enumerate(json_dicts(body.get("tools"))):
        function = tool.get("function")
        name = cast(dict[str, Any], function).get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            param = f"tools[{index}].function.name"
            return Rejection(
                f"Invalid '{param}': string does not match pattern. Expected a string that "
                f"matches the pattern '{TOOL_NAME.pattern}'.",
                param=param,
                code="invalid_value",
            )
    for index, message in enumerate(json_dicts(messages)):
        for position, call in enumerate(json_dicts(message.get("tool_calls"))):
            function = call.get("function")
            name = (
                cast(dict[str, Any], function).get("name") if isinstance(function, dict) else None
            )
            if not isinstance(name, str) or not TOOL_NAME.match(name):
                param = f"messages[{index}].tool_calls[{position}].function.name"
                return Rejection(
                    f"Invalid '{param}': string does not match pattern. Expected a string that "
                    f"matches the pattern '{TOOL_NAME.pattern}'.",
                    param=param,
                    code="invalid_value",
                )
    problem = _tool_call_pairing(json_dicts(messages))
    if problem is not None:
        return problem
    found = openai_images_problem(json_dicts(messages))
    if found is not None:
        return Rejection(found[1], param=f"messages.[{found[0]}].content")
    tokens = estimate_prompt_tokens(body, factor)
    if tokens > context_window:
        return Rejection(
            f"This model's maximum context length is {context_window} tokens. However, your "
            f"messages resulted in {tokens} tokens. Please reduce the length of the messages.",
            param="messages",
            code="context_length_exceeded",
        )
    return None


def _tool_call_pairing(messages: list[dict[str, Any]]) -> Rejection | None:
    """Every call is answered by a `tool` message before the next other message; no stray ones;
    no two `tool` messages of the request answer the same id."""
    pending: list[str] = []
    asked_at = 0
    answered_at: dict[str, int] = {}
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if isinstance(call_id, str) and call_id in answered_at:
                return Rejection(
                    f"Invalid parameter: Duplicate value for 'tool_call_id' of '{call_id}', in "
                    f"messages[{answered_at[call_id]}] and messages[{index}].",
                    param=f"messages.[{index}].tool_call_id",
                )
            if isinstance(call_id, str):
                answered_at[call_id] = index
            if call_id not in pending:
                return Rejection(
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",
                    param=f"messages.[{index}].role",
                )
            pending.remove(str(call_id))
            continue
        if pending:
            return _calls_unanswered(asked_at, pending)
        if role == "assistant":
            pending = [str(c.get("id")) for c in json_dicts(message.get("tool_calls"))]
            asked_at = index
    if pending:
        return _calls_unanswered(asked_at, pending)
    return None


def _calls_unanswered(index: int, ids: list[str]) -> Rejection:
    return Rejection(
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        f"{', '.join(ids)}",
        param=f"messages.[{index}].role",
    )
