"""A resumed session sends its conversation exactly as the model saw it, through the real
Claude Agent SDK: every entry the session file reorders or splits (a prompt's leading
reminders kept after it, a UserPromptSubmit hook's context kept as an attachment, a tool
result's hook context) reads back in the order it was sent, so the request after a resume
starts with the same bytes (the prompt cache's prefix holds)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from claude_agent_sdk import AgentDefinition, HookMatcher

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use


def _context(event: str, said: str) -> Any:
    async def hook(_input: Any, _id: str | None, _ctx: Any) -> dict[str, Any]:
        return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": said}}

    return hook


def _uncached(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages without their cache breakpoints (they move to the newest message)."""
    text_form = json.dumps(messages)
    plain = json.loads(text_form)
    for message in plain:
        if isinstance(message["content"], list):
            for block in message["content"]:
                block.pop("cache_control", None)
    return plain


async def test_the_resumed_request_starts_with_what_the_model_saw(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    start_hook = workspace / ".claude" / "settings.json"
    start_hook.parent.mkdir()
    start_hook.write_text(
        json.dumps(
            {
                "hooks": {
                    "SessionStart": [{"hooks": [{"type": "command", "command": "echo START-CTX"}]}]
                }
            }
        )
    )
    hooks = {
        "UserPromptSubmit": [HookMatcher(hooks=[_context("UserPromptSubmit", "UPS-CTX")])],
        "PreToolUse": [HookMatcher(hooks=[_context("PreToolUse", "PRE-CTX")])],
        "PostToolUse": [HookMatcher(hooks=[_context("PostToolUse", "POST-CTX")])],
    }
    worker = AgentDefinition(description="does work", prompt="work")
    fake_model.script(
        reply(text("look"), tool_use("Bash", command="echo hi")),
        reply(text("it says hi")),
        reply(text("resumed")),
    )
    first = await sdk.query(
        "first prompt",
        hooks=hooks,  # pyright: ignore[reportArgumentType]
        agents={"worker": worker},
        permission_mode="bypassPermissions",
        setting_sources=["project"],
    )
    session_id = result_of(first).session_id
    seen = fake_model.requests[1].messages()
    sent = [b.get("text", "") for b in seen[0]["content"]]
    assert [any(w in t for t in sent) for w in ("agent types", "START-CTX", "UPS-CTX")] == [
        True,
        True,
        True,
    ]
    assert sent[-1] == "first prompt"

    result_of(
        await sdk.query(
            "and now?",
            resume=session_id,
            agents={"worker": worker},
            permission_mode="bypassPermissions",
        )
    )
    resumed = fake_model.requests[2].messages()
    assert _uncached(resumed[: len(seen)]) == _uncached(seen)
