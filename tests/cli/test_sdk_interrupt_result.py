"""The result of a turn the SDK interrupts, as the bundled Claude Code CLI gives it (checked
against it on the same script): during the reply's text, and during a tool call, both are
`error_during_execution` with `is_error`; the stop reason is the reply's, if it ended; the
terminal reason says what was cut: the model's answer (`aborted_streaming`) or a tool at work
(`aborted_tools`)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from claude_agent_sdk import ResultMessage, StreamEvent

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use


async def _interrupted(sdk: SdkRun, when: Any) -> ResultMessage:
    async with sdk.client(
        permission_mode="bypassPermissions", include_partial_messages=True
    ) as client:
        await client.query("go")
        async for message in client.receive_messages():
            if when(message):
                await client.interrupt()
                break
        results = [m async for m in client.receive_response() if isinstance(m, ResultMessage)]
    [result] = results
    return result


async def test_an_interrupt_while_text_streams(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("word " * 200), delay_s=0.05))

    def streaming(message: Any) -> bool:
        return isinstance(message, StreamEvent) and message.event["type"] == "content_block_delta"

    result = await _interrupted(sdk, streaming)
    # Before: terminal_reason `error`, as for any failure.
    assert (
        result.subtype,
        result.is_error,
        result.stop_reason,
        result.num_turns,
        result.terminal_reason,
    ) == ("error_during_execution", True, None, 2, "aborted_streaming")
    sdk.assert_lines_parse()


async def test_an_interrupt_while_a_tool_runs(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("running"), tool_use("Bash", command="sleep 30")))

    def calling(message: Any) -> bool:
        # The reply is whole (its call is to run, or runs): not an interrupt of the stream.
        return isinstance(message, StreamEvent) and message.event["type"] == "message_stop"

    result = await _interrupted(sdk, calling)
    assert (result.subtype, result.is_error, result.stop_reason, result.num_turns) == (
        "error_during_execution",
        True,
        "tool_use",
        3,
    )


async def test_an_interrupt_once_the_tool_is_at_work(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    # The command says it is at work through a pipe the test reads: the read ends when it has.
    ready = workspace / "ready"
    os.mkfifo(ready)
    fake_model.script(
        reply(text("running"), tool_use("Bash", command="echo at-work > ready; sleep 30"))
    )

    async with sdk.client(permission_mode="bypassPermissions") as client:
        await client.query("go")
        assert await asyncio.to_thread(ready.read_text) == "at-work\n"
        await client.interrupt()
        results = [m async for m in client.receive_response() if isinstance(m, ResultMessage)]
    [result] = results
    # Before: terminal_reason `error`; Claude Code's client switches on `aborted_tools`.
    assert (
        result.subtype,
        result.is_error,
        result.stop_reason,
        result.num_turns,
        result.terminal_reason,
    ) == ("error_during_execution", True, "tool_use", 3, "aborted_tools")
    sdk.assert_lines_parse()
