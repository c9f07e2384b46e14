"""Assistant content reaches the SDK block by block, as each block closes (Claude Code writes
one line per block as it ends), not when the whole reply ends: a text block before a long tool
call is read while the call is still being written."""

from __future__ import annotations

from claude_agent_sdk import AssistantMessage, ResultMessage, TextBlock, ToolUseBlock

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use


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
