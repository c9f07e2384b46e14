"""Assistant content reaches the SDK block by block, as each block closes (Claude Code writes
one line per block as it ends), not when the whole reply ends: a text block before a long tool
call is read while the call is still being written."""

from __future__ import annotations

import json

from claude_agent_sdk import AssistantMessage, ResultMessage, TextBlock, ToolUseBlock

from tests.cli.sdk_harness import SdkRun
from tether.config.settings import tether_home
from tether.testing import FakeModelServer, raw_tool_use, reply, text, tool_use
from tether.testing.anthropic_wire import pieces


async def test_a_text_block_arrives_before_the_reply_ends(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    # The reply's stream holds once its text block closed (message_start, ping, the block's
    # start, its one delta, its stop): the tool call after it is never sent.
    fake_model.script(
        reply(text("Said early."), tool_use("Bash", command="echo hi"), stall_after=5)
    )
    seen: list[object] = []
    async with sdk.client(
        permission_mode="bypassPermissions",
        env={"TETHER_MODEL_IDLE_TIMEOUT_MS": "60000"},
    ) as client:
        await client.query("go")
        async for message in client.receive_messages():
            seen.append(message)
            if isinstance(message, AssistantMessage):
                break  # while the reply is still streaming
        await client.interrupt()
        async for message in client.receive_response():
            seen.append(message)
    [first, *later] = [m for m in seen if isinstance(m, AssistantMessage)]
    assert [type(b) for b in first.content] == [TextBlock]
    assert first.content[0].text == "Said early."  # type: ignore[union-attr]
    # The text is not written a second time when the interrupted reply is kept.
    assert not [b for m in later for b in m.content if isinstance(b, TextBlock | ToolUseBlock)]
    assert len(fake_model.requests) == 1
    assert isinstance(seen[-1], ResultMessage)
    sdk.assert_lines_parse()


async def test_blocks_arrive_as_they_close_on_the_openai_wire_too(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    # Chat completions have no block stops: a block is whole when the next one starts. The
    # stream holds once the second call started (the role chunk, the text's pieces, the first
    # call's start and its arguments' pieces, the second call's start): the text and the
    # first call are whole, the second is not.
    said, first_input = "Said early.", {"command": "echo one"}
    held = 1 + len(pieces(said)) + 1 + len(pieces(json.dumps(first_input))) + 1
    fake_model.script(
        reply(
            text(said),
            tool_use("Bash", **first_input),
            tool_use("Bash", command="echo two"),
            stall_after=held,
        )
    )
    seen: list[AssistantMessage] = []
    async with sdk.client(
        model="openai/gpt-4.1",
        permission_mode="bypassPermissions",
        env={"TETHER_MODEL_IDLE_TIMEOUT_MS": "60000"},
    ) as client:
        await client.query("go")
        async for message in client.receive_messages():
            if isinstance(message, AssistantMessage):
                seen.append(message)
                if len(seen) == 2:
                    break  # while the reply is still streaming
        await client.interrupt()
        async for _ in client.receive_response():
            pass
    text_line, call_line = seen
    assert [type(b) for b in text_line.content] == [TextBlock]
    assert text_line.content[0].text == "Said early."  # type: ignore[union-attr]
    [call] = call_line.content
    assert isinstance(call, ToolUseBlock)
    assert call.input == {"command": "echo one"}
    assert text_line.message_id == call_line.message_id  # one reply
    assert len(fake_model.requests) == 1
    sdk.assert_lines_parse()


async def test_a_call_with_input_that_is_not_json_is_written_once_and_the_others_too(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    # The call whose input is not JSON is not written as it closes (it has no input to give):
    # the reply's end writes it, and only it; the calls written as they closed are not written
    # again, whatever the types of the blocks around them.
    fake_model.script(
        reply(
            text("Two calls."),
            raw_tool_use("Bash", '{"command": "echo one', id="toolu_bad"),
            tool_use("Bash", {"command": "echo two"}, id="toolu_good"),
        ),
        reply(text("done")),
    )
    messages = await sdk.query("go", permission_mode="bypassPermissions")
    calls = [
        b.id
        for m in messages
        if isinstance(m, AssistantMessage)
        for b in m.content
        if isinstance(b, ToolUseBlock)
    ]
    assert sorted(calls) == ["toolu_bad", "toolu_good"]
    texts = [
        b.text
        for m in messages
        if isinstance(m, AssistantMessage)
        for b in m.content
        if isinstance(b, TextBlock)
    ]
    assert texts == ["Two calls.", "done"]
    # Each line names its block's entry in the session file: the same block, not its neighbour.
    [transcript] = (tether_home() / "projects").glob(f"*/{messages[-1].session_id}.jsonl")
    entries = [json.loads(line) for line in transcript.read_text().splitlines() if line]
    by_uuid = {e.get("uuid"): e for e in entries}
    for line in sdk.lines():
        if line.get("type") != "assistant":
            continue
        [block] = line["message"]["content"]
        entry = by_uuid[line["uuid"]]
        [kept] = entry["message"]["content"]
        assert (kept["type"], kept.get("id"), kept.get("text")) == (
            block["type"],
            block.get("id"),
            block.get("text"),
        )
    assert isinstance(messages[-1], ResultMessage)
    assert not messages[-1].is_error
    sdk.assert_lines_parse()
