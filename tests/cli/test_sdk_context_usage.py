"""`get_context_usage` through the real Claude Agent SDK, in the figures Claude Code gives
(measured with its CLI against the same fake model): once the API has measured a request, its
input, cache writes and reads are the total, `apiUsage` says them, the messages are the rest of
it, and the share of the window is a whole percent; no compaction buffer is listed."""

from __future__ import annotations

from typing import Any

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text

WINDOW = 200_000
MEASURED = {"input_tokens": 150_000, "output_tokens": 30, "cache_creation_input_tokens": 14_644}
MEASURED_TOTAL = 164_644


def _by_id(usage: dict[str, Any]) -> dict[str, tuple[int, str]]:
    return {c["id"]: (c["tokens"], c["kind"]) for c in usage["categories"]}


def _check_whole(usage: dict[str, Any]) -> None:
    """The parts Claude Code adds up: the used categories make the total, and with the free
    space the window."""
    used = sum(c["tokens"] for c in usage["categories"] if c["kind"] == "used")
    assert used == usage["totalTokens"]
    assert sum(c["tokens"] for c in usage["categories"]) == usage["maxTokens"]


async def test_the_api_measure_is_the_total_and_its_usage_is_said(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("one"), usage=MEASURED))
    async with sdk.client(model="claude-sonnet-4-5") as client:
        before = await client.get_context_usage()
        await client.query("first")
        result_of([m async for m in client.receive_response()])
        after = await client.get_context_usage()

    assert before["apiUsage"] is None
    assert isinstance(before["percentage"], int)
    _check_whole(before)

    categories = _by_id(after)
    settled = sum(t for k, (t, _) in categories.items() if k not in ("messages", "free_space"))
    assert categories["messages"] == (MEASURED_TOTAL - settled, "used")
    assert categories["free_space"] == (WINDOW - MEASURED_TOTAL, "free")
    assert "autocompact_buffer" not in categories
    _check_whole(after)
    figures = {k: after[k] for k in ("totalTokens", "percentage", "apiUsage", "autocompactSource")}
    assert figures == {
        "totalTokens": MEASURED_TOTAL,
        "percentage": 82,  # 82.3, a whole percent as Claude Code's
        "apiUsage": {**MEASURED, "cache_read_input_tokens": 0},
        "autocompactSource": "auto",
    }
    # Every key Claude Code's reply has, in its order (no `gridRows` filled by either).
    assert list(after) == [
        "categories",
        "totalTokens",
        "maxTokens",
        "rawMaxTokens",
        "autocompactSource",
        "percentage",
        "gridRows",
        "model",
        "memoryFiles",
        "mcpTools",
        "toolSearch",
        "mcpInstructions",
        "agents",
        "slashCommands",
        "skills",
        "autoCompactThreshold",
        "isAutoCompactEnabled",
        "messageBreakdown",
        "apiUsage",
    ]
    assert after["toolSearch"] == {"enabled": False, "mode": "standard", "reason": "not_registered"}
    breakdown = after["messageBreakdown"]
    attributed = sum(
        breakdown[k]
        for k in (
            "toolCallTokens",
            "toolResultTokens",
            "attachmentTokens",
            "assistantMessageTokens",
            "userMessageTokens",
        )
    )
    assert attributed + breakdown["unattributedTokens"] == MEASURED_TOTAL - settled


async def test_a_resumed_session_keeps_the_last_measure(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("one"), usage=MEASURED))
    first = result_of(await sdk.query("first", model="claude-sonnet-4-5"))
    async with sdk.client(model="claude-sonnet-4-5", resume=first.session_id) as client:
        usage = await client.get_context_usage()
    assert (usage["totalTokens"], usage["percentage"], usage["apiUsage"]) == (
        MEASURED_TOTAL,
        82,
        {**MEASURED, "cache_read_input_tokens": 0},
    )
