"""A PreToolUse hook's denial in Claude Code's words, with the real Claude Agent SDK over the
wire (read from the bundled Claude Code CLI on the same script): the model and the client read
`PreToolUse:<tool> hook error: <reason>`, from a callback or a command hook's JSON; an exit 2's
reason is `[<command>]: <stderr as written>`, and of several blocking hooks the last one's."""

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

BLOCK_JSON = """echo '{"decision":"block","reason":"json no"}'"""


async def _deny(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "hook says no",
        }
    }


def _command_hook(*commands: str) -> dict[str, Any]:
    hooks = [{"type": "command", "command": command} for command in commands]
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
        (
            _command_hook("printf '  no way\\n\\n' >&2; exit 2"),
            "PreToolUse:Bash hook error: [printf '  no way\\n\\n' >&2; exit 2]:   no way\n\n",
        ),
        (_command_hook("exit 2"), "PreToolUse:Bash hook error: [exit 2]: No stderr output"),
        (
            _command_hook("echo out; echo first >&2; exit 2", "echo second >&2; exit 2"),
            "PreToolUse:Bash hook error: [echo second >&2; exit 2]: second\n",
        ),
        (
            _command_hook("echo plain >&2; exit 2", BLOCK_JSON),
            "PreToolUse:Bash hook error: json no",
        ),
    ],
    ids=["callback", "json", "exit-2", "exit-2-silent", "two-exit-2", "exit-2-then-json"],
)
async def test_a_denial_is_told_in_claude_codes_words(
    sdk: SdkRun, fake_model: FakeModelServer, options: dict[str, Any], said: str
) -> None:
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    await sdk.query("go", permission_mode="bypassPermissions", **options)
    # Before: "Blocked by hook: <reason>"; an exit 2's stderr stripped, without its command,
    # and several blocks' reasons joined (Claude Code tells the last one alone).
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
