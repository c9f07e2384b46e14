"""Structured output's limits, as Claude Code: five answers that do not fit the schema end the
turn as `error_max_structured_output_retries` (never a success without the answer), and a model
that answers in text is reminded once. The real SDK drives tether over the wire."""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import ResultMessage

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"n": {"type": "integer"}},
    "required": ["n"],
}
FORMAT = {"type": "json_schema", "schema": SCHEMA}


async def _results(sdk: SdkRun, prompt: str) -> list[ResultMessage]:
    async with sdk.client(output_format=FORMAT) as client:
        await client.query(prompt)
        first = [m async for m in client.receive_response()]
        await client.query("again")
        second = [m async for m in client.receive_response()]
    return [m for m in [*first, *second] if isinstance(m, ResultMessage)]


async def test_five_misfits_end_the_turn_in_error(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    misfits = [reply(tool_use("StructuredOutput", n="notint")) for _ in range(5)]
    fake_model.script(*misfits, reply(tool_use("StructuredOutput", n=7)))
    first, second = await _results(sdk, "count")
    assert len(fake_model.requests) == 6  # no sixth call in the first turn
    assert (first.subtype, first.is_error, first.structured_output) == (
        "error_max_structured_output_retries",
        True,
        None,
    )
    said = "Output does not match required schema: /n: 'notint' is not of type 'integer'"
    assert first.errors == [
        f"Failed to provide valid structured output after 5 attempts \u2014 last "
        f"StructuredOutput error: {said}"
    ]
    assert fake_model.requests[4].tool_results() == [f"Error: {said}"]
    assert fake_model.requests[4].tool_result_errors() == [True]
    # The count is the turn's: the next prompt starts afresh and its answer is kept.
    assert (second.subtype, second.structured_output) == ("success", {"n": 7})
    sdk.assert_lines_parse()


async def test_four_misfits_then_an_answer_is_a_success(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    misfit = reply(tool_use("StructuredOutput", n="x"))
    fake_model.script(misfit, misfit, misfit, misfit, reply(tool_use("StructuredOutput", n=1)))
    messages = await sdk.query("count", output_format=FORMAT)
    [result] = [m for m in messages if isinstance(m, ResultMessage)]
    assert (result.subtype, result.structured_output) == ("success", {"n": 1})


async def test_a_text_answer_is_reminded_once(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("just text")), reply(text("still text")))
    messages = await sdk.query("count", output_format=FORMAT)
    assert len(fake_model.requests) == 2
    [result] = [m for m in messages if isinstance(m, ResultMessage)]
    assert result.result == "still text"
