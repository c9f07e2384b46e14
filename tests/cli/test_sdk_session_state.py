"""`session_state_changed` as Claude Code reports it, driven by the real Claude Agent SDK over
the wire: `idle` only once no turn is owed. The SDK ends a run at `idle` after a result and
closes the process: an `idle` between a result and a prompt already sent loses that prompt."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from typing import Any

from claude_agent_sdk import ResultMessage, query

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, RecordedRequest, reply, text


def _prompt(words: str) -> dict[str, Any]:
    return {
        "type": "user",
        "message": {"role": "user", "content": words},
        "parent_tool_use_id": None,
        "session_id": "default",
    }


async def test_a_prompt_sent_before_the_first_result_is_answered_before_idle(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    both_sent = threading.Event()

    async def prompts() -> AsyncIterator[dict[str, Any]]:
        yield _prompt("PROMPT_ONE")
        yield _prompt("PROMPT_TWO")
        both_sent.set()  # the SDK asks for more only once it has written the second

    def first(_request: RecordedRequest) -> Any:
        # The first answer waits for the second prompt to be on tether's stdin: whatever
        # the timing, the result comes with a prompt already queued.
        assert both_sent.wait(timeout=60), "the SDK never sent the second prompt"
        return reply(text("one"))

    fake_model.script(first, reply(text("two")))
    options, stream = sdk.options(), prompts()
    transport = sdk._transport(stream, options)  # pyright: ignore[reportPrivateUsage]
    messages = [m async for m in query(prompt=stream, options=options, transport=transport)]
    results = [m.result for m in messages if isinstance(m, ResultMessage)]
    assert results == ["one", "two"]
    states = [
        line.get("state") if line.get("subtype") == "session_state_changed" else line["type"]
        for line in sdk.lines()
        if line["type"] == "result" or line.get("subtype") == "session_state_changed"
    ]
    assert states == ["running", "result", "result", "idle"]  # as Claude Code
    sdk.assert_lines_parse()
