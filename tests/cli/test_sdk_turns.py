"""A session's turns as Claude Code reports and bounds them, with the real Claude Agent SDK over
the wire: the turn limit lets the last calls run, cost is the session's running total, a
budget spent stops later turns and says so, a model switch brings its own limits, and
`continue_conversation` with nothing to continue starts a session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import (
    AssistantMessage,
    ResultError,
    ResultMessage,
    SystemMessage,
    TextBlock,
    ToolResultBlock,
    UserMessage,
)

from tests.cli.sdk_harness import SdkRun, result_of
from tether.models.catalogue import MODELS, cost_usd
from tether.protocol import Usage
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.anthropic_wire import pieces

CLAUDE_CODE_USAGE = (
    "input_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
    "output_tokens",
    "output_tokens_details",
    "server_tool_use",
    "service_tier",
    "cache_creation",
    "inference_geo",
    "iterations",
    "speed",
    "fallback_credit",
)
"""The keys of a result's `usage` in Claude Code's (its stream-json `result` line)."""


async def test_the_turn_limit_runs_the_last_calls_then_stops(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(reply(tool_use("Bash", command="touch late")), reply(text("never")))
    messages: list[Any] = []

    async def run() -> None:
        async for message in sdk.stream("go", max_turns=1, permission_mode="bypassPermissions"):
            messages.append(message)

    with pytest.raises(ResultError):
        await run()
    assert (workspace / "late").exists()
    assert len(fake_model.requests) == 1
    [ran] = [m for m in messages if isinstance(m, UserMessage)]
    assert ran.tool_use_result is not None
    assert ran.tool_use_result["stdout"] == ""
    result = result_of(messages)
    # Claude Code counts the unread round of results as a turn.
    assert (result.subtype, result.is_error, result.num_turns) == ("error_max_turns", True, 2)
    assert result.errors == ["Reached maximum number of turns (1)"]
    # As Claude Code: an error subtype's result carries no `result` (the last reply's text is
    # no answer); `errors` says what ended the turn.
    [line] = [line for line in sdk.lines() if line["type"] == "result"]
    assert "result" not in line
    assert result.result is None


async def test_cost_is_the_sessions_running_total(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(
        reply(text("one")),
        reply(tool_use("Bash", command="true")),
        reply(text("two")),
        reply(text("three")),
    )
    results: list[ResultMessage] = []
    async with sdk.client(permission_mode="bypassPermissions") as client:
        for prompt in ("a", "b", "c"):
            await client.query(prompt)
            results.append(result_of([m async for m in client.receive_response()]))
    model = fake_model.requests[0].body["model"]
    per_request = [cost_usd(MODELS[model], Usage(**r.usage or {})) for r in fake_model.requests]
    spent = [per_request[0], sum(per_request[:3]), sum(per_request)]
    assert [r.total_cost_usd for r in results] == pytest.approx(spent, abs=1e-6)
    # modelUsage is the session's too; usage and num_turns are each turn's own.
    assert [r.model_usage and r.model_usage[model]["costUSD"] for r in results] == pytest.approx(
        spent, abs=1e-6
    )
    assert [r.num_turns for r in results] == [1, 2, 1]
    assert results[2].usage is not None
    served = fake_model.requests[3].usage or {}
    assert {k: results[2].usage[k] for k in served} == served
    # Claude Code's twelve keys, the cache written split by lifetime (five minutes: tether's).
    assert sorted(results[2].usage) == sorted(CLAUDE_CODE_USAGE)
    assert results[2].usage["cache_creation"] == {
        "ephemeral_1h_input_tokens": 0,
        "ephemeral_5m_input_tokens": served["cache_creation_input_tokens"],
    }
    assert results[2].usage["server_tool_use"] == {
        "web_search_requests": 0,
        "web_fetch_requests": 0,
    }
    assert results[1].duration_api_ms >= results[0].duration_api_ms


async def test_num_turns_counts_the_turns_user_messages_as_claude_code_does(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(
        reply(*[tool_use("Bash", command=f"echo {n}") for n in range(3)]),
        reply(text("three ran")),
        reply(tool_use("Bash", command="while true; do sleep 0.05; done")),
    )
    results: list[ResultMessage] = []
    async with sdk.client(permission_mode="bypassPermissions") as client:
        await client.query("three at once")
        results.append(result_of([m async for m in client.receive_response()]))
        await client.query("then wait")
        messages: list[Any] = []
        async for message in client.receive_response():
            messages.append(message)
            if isinstance(message, AssistantMessage):
                await client.interrupt()
        results.append(result_of(messages))
    # The prompt and three results; the prompt, the call's result and the interruption's mark.
    # (The bundled Claude Code reports 4 and 3 for these two turns.)
    assert [r.num_turns for r in results] == [4, 3]


async def test_num_turns_counts_a_call_shown_while_its_reply_streamed(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    # The reply holds once its call's block closed (message_start, ping, the block's start,
    # its input's pieces, the first empty, its stop): the interruption lands while it streams.
    # Claude Code's own CLI, on the same script: the call answered as interrupted, the mark
    # "[Request interrupted by user]", num_turns 3. Before, tether dropped the call: 2.
    command = {"command": "touch ran"}
    closed = 3 + 1 + len(pieces(json.dumps(command))) + 1
    fake_model.script(reply(tool_use("Bash", **command), stall_after=closed))
    messages: list[Any] = []
    async with sdk.client(
        permission_mode="bypassPermissions", env={"TETHER_MODEL_IDLE_TIMEOUT_MS": "60000"}
    ) as client:
        await client.query("go")
        async for message in client.receive_response():
            messages.append(message)
            if isinstance(message, AssistantMessage):
                await client.interrupt()
    shown = [b for m in messages if isinstance(m, UserMessage) for b in m.content]  # type: ignore[union-attr]
    [answer, mark] = shown
    assert isinstance(answer, ToolResultBlock)
    assert (answer.tool_use_id, answer.is_error) == ("toolu_1", True)
    assert mark == TextBlock(text="[Request interrupted by user]")
    assert result_of(messages).num_turns == 3
    assert not (workspace / "ran").exists()
    sdk.assert_lines_parse()


async def test_a_spent_budget_stops_later_turns_and_says_what_was_spent(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(reply(tool_use("Bash", command="touch ran")), reply(text("never")))
    results: list[ResultMessage] = []
    seen: list[Any] = []
    async with sdk.client(max_budget_usd=0.000001) as client:
        for prompt in ("a", "b"):
            await client.query(prompt)
            turn = [m async for m in client.receive_response()]
            seen.extend(turn)
            results.append(result_of(turn))
    assert not [m for m in seen if isinstance(m, UserMessage)]
    first, second = results
    assert (first.subtype, second.subtype) == ("error_max_budget_usd", "error_max_budget_usd")
    assert first.errors == second.errors == ["Reached maximum budget ($0.000001)"]
    assert first.total_cost_usd is not None
    assert first.total_cost_usd > 0
    assert second.total_cost_usd == first.total_cost_usd  # nothing more was spent
    assert len(fake_model.requests) == 1
    assert not (workspace / "ran").exists()
    # As Claude Code: the calls not run show no result; each turn counts its prompt.
    assert (first.num_turns, second.num_turns) == (1, 1)


@pytest.mark.parametrize(("budget", "said"), [(0.000001, "0.000001"), (0.00002, "0.00002")])
async def test_a_text_answer_past_the_budget_is_the_budgets_error(
    sdk: SdkRun, fake_model: FakeModelServer, budget: float, said: str
) -> None:
    fake_model.script(reply(text("first")))
    async with sdk.client(max_budget_usd=budget) as client:
        await client.query("a")
        result = result_of([m async for m in client.receive_response()])
    assert (result.subtype, result.is_error, result.num_turns) == (
        "error_max_budget_usd",
        True,
        1,
    )
    # As JavaScript writes the figure (it said 1e-06 and 2e-05).
    assert result.errors == [f"Reached maximum budget (${said})"]


async def test_a_model_switch_brings_the_models_own_limits(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("a")), reply(text("b")))
    big, small = MODELS["claude-sonnet-5-5"], MODELS["claude-haiku-4-5"]
    assert big.max_output_tokens != small.max_output_tokens
    assert big.context_window != small.context_window
    async with sdk.client(model="claude-sonnet-5-5") as client:
        await client.query("hi")
        [m async for m in client.receive_response()]
        await client.set_model("claude-haiku-4-5")
        await client.query("again")
        after = result_of([m async for m in client.receive_response()])
        usage = await client.get_context_usage()
    assert [r.body["max_tokens"] for r in fake_model.requests] == [
        big.max_output_tokens,
        small.max_output_tokens,
    ]
    assert after.model_usage is not None
    haiku = after.model_usage["claude-haiku-4-5"]
    assert (haiku["contextWindow"], haiku["maxOutputTokens"]) == (
        small.context_window,
        small.max_output_tokens,
    )
    assert usage["maxTokens"] == small.context_window


async def test_continue_with_nothing_to_continue_starts_a_session(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("fresh")), reply(text("continued")))
    first = await sdk.query("hello", continue_conversation=True)
    assert result_of(first).result == "fresh"
    second = await sdk.query("again", continue_conversation=True)
    assert result_of(second).result == "continued"
    assert result_of(second).session_id == result_of(first).session_id
    init = [m for m in second if isinstance(m, SystemMessage) and m.subtype == "init"]
    assert init[0].data["session_id"] == result_of(first).session_id


async def test_a_paused_turn_returns_and_the_next_prompt_goes_on_from_it(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    """`pause_turn` (a server tool's long turn paused): Claude Code stops and returns the
    result; the next prompt continues the conversation from the paused message."""
    fake_model.script(
        reply(text("Searching the web..."), stop_reason="pause_turn"),
        reply(text("Found it.")),
    )
    async with sdk.client() as client:
        await client.query("search for it")
        paused = result_of([m async for m in client.receive_response()])
        await client.query("go on")
        done = result_of([m async for m in client.receive_response()])
    assert (paused.subtype, paused.is_error, paused.result, paused.stop_reason) == (
        "success",
        False,
        "Searching the web...",
        "pause_turn",
    )
    assert (done.result, done.stop_reason) == ("Found it.", "end_turn")
    assert len(fake_model.requests) == 2
    said = fake_model.requests[1].messages()
    assert [m["role"] for m in said] == ["user", "assistant", "user"]
    assert "Searching the web..." in str(said[1]["content"])
    sdk.assert_lines_parse()
