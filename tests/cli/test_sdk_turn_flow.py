"""How a turn flows as Claude Code runs it, with the real Claude Agent SDK over the wire: words
sent while it runs join it, an interruption keeps what was said and is marked in the
conversation, a denial that interrupts is counted, retries and a fallback are reported, and a
structured answer is insisted on and ends the turn."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import (
    AssistantMessage,
    HookMatcher,
    PermissionResultDeny,
    ResultError,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    ToolPermissionContext,
    UserMessage,
    query,
)

from tests.cli.sdk_harness import SdkRun
from tether.models.catalogue import MODELS, cost_usd
from tether.protocol import Usage
from tether.testing import FakeModelServer, http_error, reply, text, tool_use


def _results(messages: list[Any]) -> list[ResultMessage]:
    return [m for m in messages if isinstance(m, ResultMessage)]


async def test_words_sent_during_a_turn_join_it(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="while [ ! -e go ]; do sleep 0.05; done")),
        reply(text("both done")),
    )
    async with sdk.client(permission_mode="bypassPermissions") as client:
        await client.query("first")
        messages: list[Any] = []
        async for message in client.receive_response():
            messages.append(message)
            if len(messages) == 2:  # the call's line: the command waits for us
                assert isinstance(message, AssistantMessage)
                await client.query("and also this")
                await asyncio.sleep(0.5)  # the line travels; the command still waits
                (workspace / "go").touch()
    assert len(_results(messages)) == 1
    assert len(fake_model.requests) == 2
    assert "and also this" in fake_model.requests[1].last_user_text()


async def test_an_interruption_keeps_what_was_said_and_is_marked(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("word " * 40), delay_s=0.05), reply(text("after")))
    async with sdk.client(include_partial_messages=True) as client:
        await client.query("long answer")
        deltas = 0
        async for message in client.receive_response():
            if isinstance(message, StreamEvent) and message.event["type"] == "content_block_delta":
                deltas += 1
                if deltas == 3:
                    await client.interrupt()
        await client.query("next")
        [m async for m in client.receive_response()]
    said, then = fake_model.requests[1].messages()[-2:]
    assert said["role"] == "assistant"
    assert said["content"][0]["text"].startswith("word word word")
    assert "word " * 40 not in json.dumps(said)  # only what came before the interruption
    assert then["role"] == "user"
    assert [b["text"] for b in then["content"]] == ["[Request interrupted by user]", "next"]


async def test_a_denial_that_interrupts_is_counted_and_marked(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(reply(tool_use("Bash", command="touch x")), reply(text("never")))

    async def stop_everything(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultDeny:
        return PermissionResultDeny(message="stop right there", interrupt=True)

    async def prompt() -> Any:
        yield {"type": "user", "message": {"role": "user", "content": "go"}}

    messages: list[Any] = []

    async def run() -> None:
        options = sdk.options(can_use_tool=stop_everything)
        async for message in query(prompt=prompt(), options=options):
            messages.append(message)

    with pytest.raises(ResultError):
        await run()
    assert not (workspace / "x").exists()
    [result] = _results(messages)
    assert result.subtype == "error_during_execution"
    assert result.permission_denials == [
        {"tool_name": "Bash", "tool_use_id": "toolu_1", "tool_input": {"command": "touch x"}}
    ]
    marks = [
        getattr(block, "text", None)
        for m in messages
        if isinstance(m, UserMessage) and isinstance(m.content, list)
        for block in m.content
        if not hasattr(block, "tool_use_id")
    ]
    assert marks == ["[Request interrupted by user for tool use]"]
    assert len(fake_model.requests) == 1


async def test_retries_and_the_fallback_are_reported(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    overloaded = http_error(529, "Overloaded", "overloaded_error")
    fake_model.script(overloaded, overloaded, overloaded, reply(text("from the fallback")))
    messages = await sdk.query(
        "hi",
        model="claude-sonnet-4-5",
        fallback_model="claude-haiku-4-5",
        env={"TETHER_RETRY_DELAY_MS": "10"},
    )
    # As Claude Code: the overloaded model is tried three times, then the fallback takes over.
    assert [r.body["model"] for r in fake_model.requests] == [
        "claude-sonnet-4-5",
        "claude-sonnet-4-5",
        "claude-sonnet-4-5",
        "claude-haiku-4-5",
    ]
    system = [m.data for m in messages if isinstance(m, SystemMessage) and m.subtype != "init"]
    retries = [d for d in system if d["subtype"] == "api_retry"]
    assert [(d["attempt"], d["error_status"], d["error"]) for d in retries] == [
        (1, 529, "overloaded"),
        (2, 529, "overloaded"),
    ]
    [fallback] = [d for d in system if d["subtype"] == "model_fallback"]
    assert (fallback["original_model"], fallback["fallback_model"]) == (
        "claude-sonnet-4-5",
        "claude-haiku-4-5",
    )
    assert _results(messages)[0].result == "from the fallback"
    sdk.assert_lines_parse()


async def test_once_the_fallback_took_over_the_retries_stay_on_it(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    overloaded = http_error(529, "Overloaded", "overloaded_error")
    fake_model.script(*[overloaded] * 4, reply(text("from the fallback")))
    messages = await sdk.query(
        "hi",
        model="claude-sonnet-4-5",
        fallback_model="claude-haiku-4-5",
        env={"TETHER_RETRY_DELAY_MS": "10"},
    )
    # As Claude Code: the fallback, overloaded once too, is retried; the primary is not.
    assert [r.body["model"] for r in fake_model.requests] == [
        *["claude-sonnet-4-5"] * 3,
        *["claude-haiku-4-5"] * 2,
    ]
    [answer] = [m for m in messages if isinstance(m, AssistantMessage)]
    assert answer.model == "claude-haiku-4-5"
    [result] = _results(messages)
    assert result.result == "from the fallback"
    assert result.model_usage is not None
    assert list(result.model_usage) == ["claude-haiku-4-5"]
    haiku = MODELS["claude-haiku-4-5"]
    spent = cost_usd(haiku, Usage(**fake_model.requests[-1].usage or {}))
    assert result.model_usage["claude-haiku-4-5"]["costUSD"] == pytest.approx(spent, abs=1e-6)


async def test_a_structured_answer_is_insisted_on_and_ends_the_turn(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "integer"}},
        "required": ["answer"],
    }
    fake_model.script(
        reply(text("the answer is 42")),
        reply(tool_use("StructuredOutput", answer=42)),
        reply(text("never asked")),
    )
    messages = await sdk.query(
        "what is 6*7", output_format={"type": "json_schema", "schema": schema}
    )
    assert len(fake_model.requests) == 2  # the answer ends the turn
    assert (
        fake_model.requests[1]
        .messages()[-1]["content"][0]["text"]
        .startswith("[structured-output-enforce] You MUST call the StructuredOutput tool")
    )
    [result] = _results(messages)
    assert (result.result, result.structured_output) == ('{"answer":42}', {"answer": 42})


async def test_a_hooks_stop_wins_over_an_owed_structured_answer(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    schema = {"type": "object", "properties": {"answer": {"type": "integer"}}}
    fake_model.script(reply(tool_use("Bash", command="true")), reply(text("never asked")))

    async def stop(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        return {"continue": False}

    messages = await sdk.query(
        "go",
        permission_mode="bypassPermissions",
        output_format={"type": "json_schema", "schema": schema},
        hooks={"PreToolUse": [HookMatcher(hooks=[stop])]},
    )
    assert len(fake_model.requests) == 1
    # No reminder of the answer owed after the stop, not even in the conversation.
    assert "structured-output-enforce" not in json.dumps([str(m) for m in messages])
