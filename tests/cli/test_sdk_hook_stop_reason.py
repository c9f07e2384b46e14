"""A hook's `continue: false`, through the real Claude Agent SDK, ends the turn as Claude Code
ends it (measured with its CLI against the same fake model): a PreToolUse or PostToolUse hook's
lets the call finish, then the result says `terminal_reason: "hook_stopped"` with no answer; a
Stop hook's says `"stop_hook_prevented"`; no notice line either way."""

from __future__ import annotations

from typing import Any

import pytest
from claude_agent_sdk import HookMatcher, ResultMessage

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use


async def _stop(_input: Any, _id: str | None, _ctx: Any) -> dict[str, Any]:
    return {"continue": False, "stopReason": "hook-says-stop"}


@pytest.mark.parametrize(
    ("event", "requests", "ending"),
    [
        ("PreToolUse", 1, ("hook_stopped", "", "tool_use", 2)),
        ("PostToolUse", 1, ("hook_stopped", "", "tool_use", 2)),
        ("Stop", 2, ("stop_hook_prevented", "done", "end_turn", 2)),
    ],
)
async def test_a_hook_stop_is_said_by_the_result(
    sdk: SdkRun,
    fake_model: FakeModelServer,
    event: str,
    requests: int,
    ending: tuple[str, str, str, int],
) -> None:
    fake_model.script(
        reply(text("look"), tool_use("Bash", command="echo hi")),
        reply(text("done")),
        reply(text("more")),
    )
    hooks = {event: [HookMatcher(hooks=[_stop])]}
    messages = await sdk.query(
        "go",
        hooks=hooks,  # pyright: ignore[reportArgumentType]
        permission_mode="bypassPermissions",
    )
    result: ResultMessage = result_of(messages)
    line = next(line for line in sdk.lines() if line["type"] == "result")
    assert len(fake_model.requests) == requests
    said = (line["terminal_reason"], result.result, result.stop_reason, result.num_turns)
    assert (said, result.is_error) == (ending, False)
    assert [line for line in sdk.lines() if line.get("subtype") == "notice"] == []
