"""A prompt past the model's window is never cut: the turn ends as Claude Code ends it, an
error result "Prompt is too long" (its assistant line's `error` is `invalid_request`), and the
model never answers words it did not see. The real SDK, over the wire."""

from __future__ import annotations

from typing import Any

import pytest
from claude_agent_sdk import AssistantMessage, ResultError, ResultMessage

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text

BIG = "ünï😀 " * 200_000  # a million characters, past a 200,000-token window
WINDOW_200K = "claude-sonnet-4-6"
"""A model run in the fake server's window, 200k (the default model's is 1M)."""


def _cut(fake_model: FakeModelServer) -> list[str]:
    return [str(r.body)[:80] for r in fake_model.requests if "characters cut here" in str(r.body)]


async def test_a_prompt_past_the_window_ends_the_turn_as_too_long(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.expect_rejections = True  # the API is the judge of a first request's size
    fake_model.script(reply(text("answered a cut prompt")))
    messages: list[Any] = []

    async def read() -> None:
        async for message in sdk.stream("X" + BIG + "END"):
            messages.append(message)

    with pytest.raises(ResultError, match="Prompt is too long"):  # the SDK's own, as for CC
        await read()
    [result] = [m for m in messages if isinstance(m, ResultMessage)]
    assert result.is_error
    assert result.result is not None
    assert result.result.startswith("Prompt is too long")
    errors = [m.error for m in messages if isinstance(m, AssistantMessage) and m.error]
    assert errors == ["invalid_request"]
    assert not _cut(fake_model)
    assert not [r for r in fake_model.requests if r.status == 200]
    sdk.assert_lines_parse()


async def test_the_session_goes_on_after_a_prompt_too_long(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    # Once the API has told the estimate, a prompt too long is refused without a request, and
    # the next prompt is answered.
    fake_model.expect_rejections = True
    fake_model.script(reply(text("first")), reply(text("after")))
    async with sdk.client(model=WINDOW_200K) as client:
        results: list[ResultMessage] = []
        for prompt in ("hello", "X" + BIG, "again"):
            await client.query(prompt)
            async for message in client.receive_response():
                if isinstance(message, ResultMessage):
                    results.append(message)
    assert [r.is_error for r in results] == [False, True, False]
    assert results[1].result is not None
    assert results[1].result.startswith("Prompt is too long")
    assert results[2].result == "after"
    assert not _cut(fake_model)
    assert len(fake_model.requests) == 2  # the calibrated estimate refused it here
    sdk.assert_lines_parse()
