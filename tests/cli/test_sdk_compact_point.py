"""Automatic compaction starts where Claude Code's does: the window less the reply's room (its
output cap, at most 20,000 tokens) and 13,000 more, sooner with
CLAUDE_AUTOCOMPACT_PCT_OVERRIDE; `get_context_usage` says that point. The figures are Claude
Code's own (its bundled CLI's `autoCompactThreshold` against the fake server). The real SDK
over the wire; the fake server reports each prompt at the size the test names."""

from __future__ import annotations

import json

import pytest
from claude_agent_sdk import Message, ResultMessage, SystemMessage

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text


def at(tokens: int) -> dict[str, int]:
    """A reply's usage saying its prompt took `tokens` (read from the cache, as most are)."""
    return {
        "input_tokens": 10,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": tokens - 10,
    }


@pytest.mark.parametrize(
    ("model", "env", "window", "point", "shown"),
    [
        ("claude-sonnet-4-5", {}, 200_000, 167_000, 167_000),
        ("claude-opus-4-7", {}, 1_000_000, 967_000, 967_000),
        # A lower output cap leaves more room: 200000 - 8000 - 13000.
        ("claude-sonnet-4-5", {"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "8000"}, 200_000, 179_000, 179_000),
        # A raised one keeps 20000 of room.
        (
            "claude-sonnet-4-5",
            {"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "64000"},
            200_000,
            167_000,
            167_000,
        ),
        # Half of 180000 comes sooner; context usage says the point without the override,
        # as Claude Code's does.
        ("claude-sonnet-4-5", {"CLAUDE_AUTOCOMPACT_PCT_OVERRIDE": "50"}, 200_000, 90_000, 167_000),
    ],
)
async def test_compaction_starts_at_claude_codes_point(
    sdk: SdkRun,
    fake_model: FakeModelServer,
    model: str,
    env: dict[str, str],
    window: int,
    point: int,
    shown: int,
) -> None:
    fake_model.context_window = window
    # Just under the point after "two", at it after "three": "four" is compacted first.
    fake_model.script(
        reply(text("A1")),
        reply(text("A2"), usage=at(point - 1)),
        reply(text("A3"), usage=at(point)),
        reply(text("SUMMARY")),
        reply(text("A4")),
    )
    seen: list[Message] = []
    async with sdk.client(model=model, env=env) as client:
        for prompt in ("one", "two", "three", "four"):
            await client.query(prompt)
            seen.extend([m async for m in client.receive_response()])
        usage = await client.get_context_usage()
    results = [m.result for m in seen if isinstance(m, ResultMessage)]
    boundaries = [
        m.data["compact_metadata"]["trigger"]
        for m in seen
        if isinstance(m, SystemMessage) and m.subtype == "compact_boundary"
    ]
    # Before, tether compacted at 85% of the window: 170000 and 850000 (too late on 200k,
    # far too soon on 1M).
    assert (results, boundaries, len(fake_model.requests)) == (
        ["A1", "A2", "A3", "A4"],
        ["auto"],
        5,
    )
    assert "SUMMARY" in json.dumps(fake_model.requests[-1].body["messages"])
    assert (usage["maxTokens"], usage["autoCompactThreshold"]) == (window, shown)
