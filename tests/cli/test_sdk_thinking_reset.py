"""A client's `set_max_thinking_tokens` of null puts the session back on the thinking it
started with, as Claude Code does (measured: its bundled CLI against the fake server), not
on the default budget. The real SDK over the wire; the SDK has no method for the request
yet, so it is sent as the SDK sends control requests."""

from __future__ import annotations

from typing import Any

import pytest
from claude_agent_sdk import ClaudeSDKClient

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text


async def set_thinking(client: ClaudeSDKClient, tokens: int | None) -> dict[str, Any]:
    query = client._query  # pyright: ignore[reportPrivateUsage]
    assert query is not None
    request = {"subtype": "set_max_thinking_tokens", "max_thinking_tokens": tokens}
    return await query._send_control_request(request)  # pyright: ignore[reportPrivateUsage]


async def turn(client: ClaudeSDKClient, prompt: str) -> None:
    await client.query(prompt)
    async for _ in client.receive_response():
        pass


@pytest.mark.parametrize(
    ("start", "started_with"),
    [
        ({}, {"type": "enabled", "budget_tokens": 31_999}),
        (
            {"extra_args": {"max-thinking-tokens": "5000"}},
            {"type": "enabled", "budget_tokens": 5000},
        ),
        # Off at the start stays off (it was turned on at 31999).
        ({"env": {"MAX_THINKING_TOKENS": "0"}}, {"type": "disabled"}),
        # The default budget follows the output cap: 7999 under 8000 (it was 31999).
        (
            {"env": {"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "8000"}},
            {"type": "enabled", "budget_tokens": 7999},
        ),
    ],
    ids=["default", "flag", "off", "output-cap"],
)
async def test_null_goes_back_to_the_thinking_the_session_started_with(
    sdk: SdkRun, fake_model: FakeModelServer, start: dict[str, Any], started_with: dict[str, Any]
) -> None:
    fake_model.script(reply(text("a")), reply(text("b")), reply(text("c")))
    async with sdk.client(model="claude-sonnet-4-5", **start) as client:
        await turn(client, "one")
        assert await set_thinking(client, 2000) == {}
        await turn(client, "two")
        assert await set_thinking(client, None) == {}
        await turn(client, "three")
    sent = [r.body.get("thinking") for r in fake_model.requests]
    assert sent == [started_with, {"type": "enabled", "budget_tokens": 2000}, started_with]
