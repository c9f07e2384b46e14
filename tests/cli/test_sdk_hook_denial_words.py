"""A PreToolUse hook's denial in Claude Code's words, with the real Claude Agent SDK over the
wire (read from the bundled Claude Code CLI on the same script): the model and the client read
`PreToolUse:<tool> hook error: <reason>`, from a callback or a command hook's JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest
from claude_agent_sdk import HookMatcher

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use

JSON_DENY = (
    """echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","""
    """"permissionDecision":"deny","permissionDecisionReason":"json says no"}}'"""
)


async def _deny(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "hook says no",
        }
    }


def _command_hook(command: str) -> dict[str, Any]:
    hooks = [{"type": "command", "command": command}]
    return {
        "settings": json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}})
    }


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (
            {"hooks": {"PreToolUse": [HookMatcher(matcher="Bash", hooks=[_deny])]}},
            "PreToolUse:Bash hook error: hook says no",
        ),
        (_command_hook(JSON_DENY), "PreToolUse:Bash hook error: json says no"),
    ],
    ids=["callback", "json"],
)
async def test_a_denial_is_told_in_claude_codes_words(
    sdk: SdkRun, fake_model: FakeModelServer, options: dict[str, Any], said: str
) -> None:
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    await sdk.query("go", permission_mode="bypassPermissions", **options)
    # Before: "Blocked by hook: <reason>".
    assert (fake_model.requests[1].tool_results(), fake_model.requests[1].tool_result_errors()) == (
        [said],
        [True],
    )
    told = [
        (line["message"]["content"][0]["content"], line["tool_use_result"])
        for line in sdk.lines()
        if line["type"] == "user"
    ]
    assert told == [(said, f"Error: {said}")]
    sdk.assert_lines_parse()
