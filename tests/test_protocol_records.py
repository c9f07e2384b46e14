"""The protocol's records: pydantic's model API without pydantic, and its checks where data
comes from outside (a session file, a client's message)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from tether.protocol import (
    Event,
    ImageBlock,
    Message,
    TextBlock,
    TextDelta,
    ToolResultBlock,
    ToolUseBlock,
    TurnFinished,
    Usage,
)
from tether.protocol.messages import MOST_TOKENS


def test_building_and_dumping_records_imports_no_pydantic() -> None:
    code = (
        "import sys\n"
        "from tether.protocol import Message, TurnStarted, Usage\n"
        "m = Message.user_text('hi')\n"
        "assert m.model_dump_json() == "
        '\'{"role":"user","content":[{"type":"text","text":"hi"}]}\'\n'
        "assert Usage(input_tokens=1).model_dump()['input_tokens'] == 1\n"
        "TurnStarted(prompt='x').model_copy(update={'prompt': 'y'})\n"
        "assert 'pydantic' not in sys.modules, sorted(m for m in sys.modules if 'pydantic' in m)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_message_from_outside_is_checked_with_pydantics_messages() -> None:
    data = {"role": "user", "content": [{"type": "text", "text": "x", "extra": 1}]}
    with pytest.raises(ValidationError) as raised:
        Message.model_validate(data)
    [error] = raised.value.errors()
    assert (error["type"], error["loc"]) == ("extra_forbidden", ("content", 0, "text", "extra"))
    assert "1 validation error for Message" in str(raised.value)


def test_an_image_without_bytes_and_a_count_past_any_are_refused() -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": ""}}
    with pytest.raises(ValidationError, match="at least 1 character"):
        ImageBlock.model_validate(image)
    with pytest.raises(ValidationError, match="less than or equal"):
        Usage.model_validate({"input_tokens": MOST_TOKENS + 1})


def test_records_round_trip_through_json_nested_and_tagged() -> None:
    message = Message(
        role="user",
        content=[
            ToolResultBlock(
                tool_use_id="t1",
                content="seen",
                images=[
                    ImageBlock.model_validate(
                        {"source": {"type": "url", "url": "https://example.com/a.png"}}
                    )
                ],
            ),
            ToolUseBlock(id="t2", name="Read", input={"file_path": "/a"}),
        ],
    )
    assert isinstance(message.content, tuple)
    assert Message.model_validate_json(message.model_dump_json()) == message
    assert Message.model_validate(message) is message
    dumped = message.model_dump(mode="json", exclude_none=True)
    assert dumped["content"][1] == {
        "type": "tool_use",
        "id": "t2",
        "name": "Read",
        "input": {"file_path": "/a"},
    }
    assert isinstance(message.model_dump()["content"], tuple)


def test_usage_has_the_messages_apis_shape_both_ways() -> None:
    usage = Usage.model_validate({"input_tokens": 3, "server_tool_use": {"web_search_requests": 2}})
    assert usage == Usage(input_tokens=3, web_search_requests=2)
    assert usage.model_dump()["server_tool_use"] == {
        "web_search_requests": 2,
        "web_fetch_requests": 0,
    }
    assert "server_tool_use" not in Usage().model_dump()
    assert (usage + usage).web_search_requests == 4


def test_a_copy_changes_only_the_fields_named() -> None:
    block = TextBlock(text="a")
    assert block.model_copy(update={"text": "b"}) == TextBlock(text="b")
    assert block.text == "a"
    with pytest.raises(AttributeError, match="no field 'txt'"):
        block.model_copy(update={"txt": "b"})


def test_events_are_a_discriminated_union_inside_pydantic_models() -> None:
    class Carrier(BaseModel):
        event: Event

    carried = Carrier.model_validate({"event": {"kind": "text_delta", "text": "hi"}})
    assert carried.event == TextDelta(text="hi")
    with pytest.raises(ValidationError, match="does not match any of the expected tags"):
        TypeAdapter(Event).validate_python({"kind": "nope"})
    finished = TurnFinished(
        subtype="success",
        is_error=False,
        result="ok",
        stop_reason="end_turn",
        num_turns=1,
        usage=Usage(output_tokens=2),
        cost_usd=0.5,
        duration_ms=3,
        duration_api_ms=2,
    )
    assert TurnFinished.model_validate(finished.model_dump(mode="json")) == finished
