"""The rules the real APIs enforce on a request, with error messages close to theirs.

Each check returns the first problem as a `Rejection` (answered with HTTP 400), or None. A
request tether builds that fails here would fail against the real API: that is a bug.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from tether.testing.effort_rules import anthropic_effort_problem, openai_effort_problem
from tether.testing.image_rules import anthropic_image_problem, openai_images_problem
from tether.testing.recorded import blocks_of
from tether.testing.tokens import estimate_prompt_tokens

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
TOOL_USE_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
_SURROGATE = re.compile("[\ud800-\udfff]")
MAX_CACHE_CONTROL_BLOCKS = 4
MIN_THINKING_BUDGET = 1024


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


def _list(value: object) -> list[Any] | None:
    return cast(list[Any], value) if isinstance(value, list) else None


def _dicts(value: object) -> list[dict[str, Any]]:
    return [cast(dict[str, Any], v) for v in _list(value) or [] if isinstance(v, dict)]


# --- Anthropic ---------------------------------------------------------------------------


def validate_anthropic(
    body: Mapping[str, Any], context_window: int, factor: float = 1.0
) -> Rejection | None:
    """Check a Messages API request the way the API does (`factor`: see
    `estimate_prompt_tokens`)."""
    for check in (
        _required_fields,
        _thinking_budget,
        anthropic_effort_problem,
        _tool_specs,
        _system_blocks,
        _message_shapes,
        _tool_pairing,
        _cache_control_count,
    ):
        problem = check(body)
        if problem is not None:
            return Rejection(problem)
    tokens = estimate_prompt_tokens(body, factor)
    if tokens > context_window:
        return Rejection(f"prompt is too long: {tokens} tokens > {context_window} maximum")
    return None


def _required_fields(body: Mapping[str, Any]) -> str | None:
    for name in ("model", "max_tokens", "messages"):
        if name not in body:
            return f"{name}: Field required"
    if not isinstance(body["model"], str) or not body["model"]:
        return "model: Input should be a valid string"
    max_tokens = body["max_tokens"]
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool):
        return "max_tokens: Input should be a valid integer"
    if max_tokens < 1:
        return "max_tokens: Input should be greater than or equal to 1"
    messages = _list(body["messages"])
    if messages is None:
        return "messages: Input should be a valid list"
    if not messages:
        return "messages: at least one message is required"
    return None


def _thinking_budget(body: Mapping[str, Any]) -> str | None:
    thinking = body.get("thinking")
    if not isinstance(thinking, dict):
        return None
    thinking = cast(dict[str, Any], thinking)
    if thinking.get("type") != "enabled":
        return None
    budget = thinking.get("budget_tokens")
    if not isinstance(budget, int):
        return "thinking.enabled.budget_tokens: Field required"
    if budget < MIN_THINKING_BUDGET:
        return (
            "thinking.enabled.budget_tokens: Input should be greater than or equal to "
            f"{MIN_THINKING_BUDGET}"
        )
    if budget >= body["max_tokens"]:
        return "`max_tokens` must be greater than `thinking.budget_tokens`."
    return None


def _tool_specs(body: Mapping[str, Any]) -> str | None:
    seen: set[str] = set()
    for index, tool in enumerate(_dicts(body.get("tools"))):
        if tool.get("type") not in (None, "custom"):
            continue  # server tools (web search...) have fixed names
        name = tool.get("name")
        if not isinstance(name, str) or not TOOL_NAME.match(name):
            return f"tools.{index}.custom.name: String should match pattern '{TOOL_NAME.pattern}'"
        if "input_schema" not in tool:
            return f"tools.{index}.custom.input_schema: Field required"
        if name in seen:
            return "tools: Tool names must be unique."
        seen.add(name)
    return None


def _empty_text(block: Mapping[str, Any]) -> str | None:
    """Why a text block is refused, if it is."""
    if block.get("type") != "text":
        return None
    text = block.get("text")
    if not isinstance(text, str) or text == "":
        return "text content blocks must be non-empty"
    if not text.strip():
        return "text content blocks must contain non-whitespace text"
    return None


def _system_blocks(body: Mapping[str, Any]) -> str | None:
    for index, block in enumerate(_dicts(body.get("system"))):
        problem = _empty_text(block)
        if problem:
            return f"system.{index}.text: {problem}"
    return None


def _message_shapes(body: Mapping[str, Any]) -> str | None:
    messages = _list(body["messages"]) or []
    last = len(messages) - 1
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            return f"messages.{index}: Input should be a valid dictionary"
        message = cast(dict[str, Any], message)
        role = message.get("role")
        if role not in ("user", "assistant", "system"):
            return f"messages.{index}.role: Input should be 'user' or 'assistant'"
        if index == 0 and role != "user":
            return 'messages: first message must use the "user" role'
        content = message.get("content")
        final_assistant = index == last and role == "assistant"
        # A system message may carry only settings for what follows (Claude Code sends
        # `{"role": "system", "content": [], "output_config": {...}}` on resume).
        settings_only = role == "system" and "output_config" in message
        if content in ("", []) and not final_assistant and not settings_only:
            return (
                f"messages.{index}: all messages must have non-empty content except for the "
                "optional final assistant message"
            )
        if not isinstance(content, str | list):
            return f"messages.{index}.content: Input should be a valid string or list"
        for position, block in enumerate(blocks_of(content)):
            problem = _block_problem(block, role)
            if problem:
                return f"messages.{index}.content.{position}.{problem}"
        if final_assistant and _ends_with_whitespace(content):
            return "final assistant content cannot end with trailing whitespace"
    return None


def _block_problem(block: Mapping[str, Any], role: object) -> str | None:
    problem = _empty_text(block)
    if problem:
        return f"text: {problem}"
    if block.get("type") == "image":
        return anthropic_image_problem(block, role)
    if block.get("type") != "tool_result":
        return None
    content = block.get("content")
    if block.get("is_error") is True and content in (None, "", []):
        return "tool_result: content cannot be empty if `is_error` is true"
    for position, inner in enumerate(blocks_of(content)):
        problem = _empty_text(inner)
        if problem:
            return f"content.{position}.text: {problem}"
        if inner.get("type") == "image":
            problem = anthropic_image_problem(inner, role)
            if problem:
                return f"content.{position}.{problem}"
    return None


def _ends_with_whitespace(content: object) -> bool:
    if isinstance(content, str):
        return content != content.rstrip()
    blocks = blocks_of(content)
    if not blocks or blocks[-1].get("type") != "text":
        return False
    text = str(blocks[-1].get("text", ""))
    return text != text.rstrip()


def _tool_pairing(body: Mapping[str, Any]) -> str | None:
    """Each tool_use is answered, first thing, in the next message; no result answers nothing;
    no two tool_use blocks of the whole request share an id."""
    messages = _dicts(body["messages"])
    asked: list[str] = []  # tool_use ids of the previous assistant message
    every_id: set[str] = set()
    for index, message in enumerate(messages):
        blocks = blocks_of(message.get("content"))
        if message.get("role") == "assistant":
            if asked:
                return _unanswered(index - 1, asked)
            asked = []
            for position, block in enumerate(blocks):
                if block.get("type") != "tool_use":
                    continue
                call_id = block.get("id")
                where = f"messages.{index}.content.{position}"
                if not isinstance(call_id, str) or not TOOL_USE_ID.match(call_id):
                    return (
                        f"{where}.tool_use.id: String should match pattern '{TOOL_USE_ID.pattern}'"
                    )
                name = block.get("name")
                if not isinstance(name, str) or not TOOL_NAME.match(name):
                    return (
                        f"{where}.tool_use.name: String should match pattern '{TOOL_NAME.pattern}'"
                    )
                if call_id in every_id:
                    return f"{where}: `tool_use` ids must be unique"
                every_id.add(call_id)
                asked.append(call_id)
            continue
        answered: list[str] = []
        seen_other = False
        for position, block in enumerate(blocks):
            if block.get("type") != "tool_result":
                seen_other = True
                continue
            tool_use_id = str(block.get("tool_use_id"))
            if tool_use_id not in asked:
                return (
                    f"messages.{index}.content.{position}: unexpected `tool_use_id` found in "
                    f"`tool_result` blocks: {tool_use_id}. Each `tool_result` block must have a "
                    "corresponding `tool_use` block in the previous message."
                )
            if seen_other:
                return (
                    f"messages.{index}: Did not find {len(asked)} `tool_result` block(s) at the "
                    "beginning of this message. Messages following `tool_use` blocks must begin "
                    "with a matching number of `tool_result` blocks."
                )
            answered.append(tool_use_id)
        missing = [i for i in asked if i not in answered]
        if missing:
            return _unanswered(index - 1, missing)
        asked = []
    if asked:
        return _unanswered(len(messages) - 1, asked)
    return None


def _unanswered(index: int, ids: list[str]) -> str:
    return (
        f"messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately "
        f"after: {', '.join(ids)}. Each `tool_use` block must have a corresponding "
        "`tool_result` block in the next message."
    )


def _cache_control_count(body: Mapping[str, Any]) -> str | None:
    blocks = [*_dicts(body.get("tools")), *_dicts(body.get("system"))]
    for message in _dicts(body["messages"]):
        for block in blocks_of(message.get("content")):
            blocks.append(block)
            blocks.extend(blocks_of(block.get("content")))  # inside tool results
    found = sum(1 for block in blocks if block.get("cache_control") is not None)
    if found > MAX_CACHE_CONTROL_BLOCKS:
        return (
            f"A maximum of {MAX_CACHE_CONTROL_BLOCKS} blocks with cache_control may be "
            f"provided. Found {found}."
        )
    return None


# --- OpenAI ------------------------------------------------------------------------------


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
    messages = _list(body["messages"])
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
    for index, tool in enumerate(_dicts(body.get("tools"))):
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
    for index, message in enumerate(_dicts(messages)):
        for position, call in enumerate(_dicts(message.get("tool_calls"))):
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
    problem = _tool_call_pairing(_dicts(messages))
    if problem is not None:
        return problem
    found = openai_images_problem(_dicts(messages))
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
            pending = [str(c.get("id")) for c in _dicts(message.get("tool_calls"))]
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
