"""The rules the real APIs enforce on a request, with error messages close to theirs.

Each check returns the first problem as a `Rejection` (answered with HTTP 400), or None. A
request tether builds that fails here would fail against the real API: that is a bug.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast

from tether.testing.effort_rules import anthropic_effort_problem
from tether.testing.image_rules import anthropic_image_problem
from tether.testing.openai_validation import validate_openai
from tether.testing.recorded import blocks_of
from tether.testing.request_rules import (
    TOOL_NAME,
    Rejection,
    json_dicts,
    json_list,
    lone_surrogate,
    output_past_window,
)
from tether.testing.tokens import estimate_prompt_tokens

__all__ = [
    "Rejection",
    "estimate_prompt_tokens",
    "lone_surrogate",
    "output_past_window",
    "validate_anthropic",
    "validate_openai",
]

TOOL_USE_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
MAX_CACHE_CONTROL_BLOCKS = 4
MIN_THINKING_BUDGET = 1024


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
    messages = json_list(body["messages"])
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
    for index, tool in enumerate(json_dicts(body.get("tools"))):
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
    for index, block in enumerate(json_dicts(body.get("system"))):
        problem = _empty_text(block)
        if problem:
            return f"system.{index}.text: {problem}"
    return None


def _message_shapes(body: Mapping[str, Any]) -> str | None:
    messages = json_list(body["messages"]) or []
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
    messages = json_dicts(body["messages"])
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
    blocks = [*json_dicts(body.get("tools")), *json_dicts(body.get("system"))]
    for message in json_dicts(body["messages"]):
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
