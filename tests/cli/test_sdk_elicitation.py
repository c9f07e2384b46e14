"""An MCP server's form in a session the real Python SDK drives: the program's `Elicitation`
hook callback answers it (the server gets the colour); with no hook, this SDK (which takes no
`elicitation` requests) has the form declined, as Claude Code's does."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from claude_agent_sdk import HookMatcher

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use

ASKING = Path(__file__).parents[1] / "mcp" / "servers" / "asking_server.py"
SERVERS = {"ask": {"type": "stdio", "command": sys.executable, "args": [str(ASKING)]}}


async def test_the_programs_elicitation_hook_answers_the_form(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    seen: list[dict[str, Any]] = []

    async def answer(hook_input: Any, tool_use_id: str | None, context: Any) -> Any:
        seen.append(dict(hook_input))
        said = {"hookEventName": "Elicitation", "action": "accept", "content": {"colour": "amber"}}
        return {"hookSpecificOutput": said}

    fake_model.script(reply(tool_use("mcp__ask__favourite")), reply(text("done")))
    hooks: Any = {"Elicitation": [HookMatcher(matcher="ask", hooks=[answer])]}
    messages = await sdk.query(
        "go", mcp_servers=SERVERS, hooks=hooks, permission_mode="bypassPermissions"
    )
    assert not result_of(messages).is_error
    assert fake_model.requests[1].tool_results() == ["colour=amber"]
    [asked] = seen
    assert asked["hook_event_name"] == "Elicitation"
    assert asked["mcp_server_name"] == "ask"
    assert asked["requested_schema"]["properties"]["colour"]["type"] == "string"
    sdk.assert_lines_parse()


async def test_without_a_hook_the_form_is_declined(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(tool_use("mcp__ask__favourite")), reply(text("done")))
    messages = await sdk.query("go", mcp_servers=SERVERS, permission_mode="bypassPermissions")
    assert not result_of(messages).is_error
    [said] = fake_model.requests[1].tool_results()
    assert "decline" in said
    sdk.assert_lines_parse()
