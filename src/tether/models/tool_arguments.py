"""Turning a tool call's streamed argument text into a `ToolUseBlock`, keeping bad input visible."""

from __future__ import annotations

from typing import Any

from tether import bounded_json
from tether.protocol import ToolUseBlock

MAX_TOKENS_CUT = "the response hit max_tokens before this tool call was complete"

_JSON_TYPE_NAMES = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


def tool_use_block(
    call_id: str, name: str, raw: str, *, cut_by_max_tokens: bool = False
) -> ToolUseBlock:
    """Parse `raw` as the call's JSON object; "" means no arguments.

    Arguments that are not a JSON object become `input={}` with `input_error` saying why and
    `raw_input` keeping the text, so the loop can tell the model instead of guessing.
    """
    if cut_by_max_tokens:
        return ToolUseBlock(
            id=call_id, name=name, input={}, input_error=MAX_TOKENS_CUT, raw_input=raw
        )
    if not raw.strip():
        return ToolUseBlock(id=call_id, name=name, input={})
    try:
        # Bounded: arguments nested a thousand levels deep would make the parser recurse
        # past Python's limit, and a few hundred fail later in pydantic.
        parsed: Any = bounded_json.loads(raw)
    except bounded_json.NestedTooDeep as err:
        reason = f"the arguments are {err}"
        return ToolUseBlock(id=call_id, name=name, input={}, input_error=reason, raw_input=raw)
    except ValueError as err:
        reason = f"the arguments are not valid JSON ({err})"
        return ToolUseBlock(id=call_id, name=name, input={}, input_error=reason, raw_input=raw)
    if not isinstance(parsed, dict):
        reason = f"the arguments must be a JSON object, not {_JSON_TYPE_NAMES[type(parsed)]}"
        return ToolUseBlock(id=call_id, name=name, input={}, input_error=reason, raw_input=raw)
    return ToolUseBlock(id=call_id, name=name, input=parsed)
