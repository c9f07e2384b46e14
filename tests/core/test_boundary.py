"""The boundary's pieces on their own: a walk that cannot overflow, and ids that stay paired."""

from __future__ import annotations

from typing import Any

from tether.core.boundary import CallIds, encodable_value
from tether.protocol import TextBlock, ToolResultBlock, ToolUseBlock


def test_deeply_nested_tool_input_is_cleaned_without_recursion() -> None:
    value: Any = "bottom \ud800"
    for depth in range(5000):
        value = {f"k{depth}": [value]} if depth % 2 else [value, 1, None]
    clean = encodable_value(value)
    while not isinstance(clean, str):
        clean = clean[0] if isinstance(clean, list) else next(iter(clean.values()))
    assert clean == "bottom \ufffd"
    untouched = {"a": [1, "fine"]}
    assert encodable_value(untouched) is untouched


def test_results_follow_renamed_calls_in_call_order() -> None:
    ids = CallIds()
    call = ToolUseBlock(id="x", name="Bash", input={})
    kept, repeat = ids.admit([call, call])
    assert isinstance(kept, ToolUseBlock)
    assert isinstance(repeat, ToolUseBlock)
    assert kept.id == "x"
    assert repeat.id.startswith("toolu_")
    results = ids.results(
        [
            TextBlock(text="typed meanwhile"),
            ToolResultBlock(tool_use_id="x", content="one"),
            ToolResultBlock(tool_use_id="x", content="two"),
        ]
    )
    assert results[1:] == (
        ToolResultBlock(tool_use_id="x", content="one"),
        ToolResultBlock(tool_use_id=repeat.id, content="two"),
    )
    [again] = ids.admit([call])  # a later message reusing "x": fresh again
    assert isinstance(again, ToolUseBlock)
    assert again.id not in ("x", repeat.id)
    assert ids.results([ToolResultBlock(tool_use_id="x", content="3")]) == (
        ToolResultBlock(tool_use_id=again.id, content="3"),
    )
