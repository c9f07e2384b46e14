"""Two UserPromptSubmit hooks' context in a session an SDK program ran on tether: kept as one
attachment entry per hook, as Claude Code keeps them, so that Claude Code resuming the file
sends the first turn as tether sent it, one user message (with one attachment of two texts
it sent each text as a user message of its own, the prompt after the second)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import HookMatcher

from tests.cli.sdk_harness import SdkRun, result_of
from tests.cli.test_claude_code_sessions import _claude  # pyright: ignore[reportPrivateUsage]
from tether.store import project_dir
from tether.testing import FakeModelServer, reply, text

sdk_package = pytest.importorskip("claude_agent_sdk")
CLAUDE = Path(sdk_package.__file__).parent / "_bundled" / "claude"
MODEL = "claude-sonnet-4-5"
"""A model that takes no system messages: Claude Code sends a hook's context in the prompt's
user message."""


def context_hook(said: str) -> HookMatcher:
    async def hook(_input: Any, _tool_use_id: str | None, _context: Any) -> dict[str, Any]:
        return {
            "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": said}
        }

    return HookMatcher(hooks=[hook])  # pyright: ignore[reportArgumentType]


def reminder(said: str) -> str:
    return (
        f"<system-reminder>\nUserPromptSubmit hook additional context: {said}\n</system-reminder>"
    )


def texts(message: dict[str, Any]) -> list[str]:
    """The message's hook contexts and its prompt, in order (not the other reminders)."""
    content = message["content"]
    blocks = [content] if isinstance(content, str) else [b["text"] for b in content]
    return [t for t in blocks if "UPS-" in t or t == "first prompt"]


@pytest.mark.skipif(not CLAUDE.exists(), reason="this claude-agent-sdk wheel bundles no CLI")
async def test_two_prompt_hooks_contexts_resume_in_claude_code_as_sent(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Path(os.environ["TETHER_HOME"])
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    fake_model.script(reply(text("first answer")), reply(text("Claude Code resumed.")))
    hooks = {"UserPromptSubmit": [context_hook("UPS-ONE"), context_hook("UPS-TWO")]}
    messages = await sdk.query("first prompt", hooks=hooks, model=MODEL)
    session_id = result_of(messages).session_id
    sent = fake_model.requests[0].messages()
    assert texts(sent[0]) == [reminder("UPS-ONE"), reminder("UPS-TWO"), "first prompt"]

    [path] = project_dir(home, workspace).glob(f"{session_id}.jsonl")
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    attachments = [e["attachment"] for e in entries if e["type"] == "attachment"]
    assert [(a["type"], a["hookEvent"], a["content"]) for a in attachments] == [
        ("hook_additional_context", "UserPromptSubmit", ["UPS-ONE"]),
        ("hook_additional_context", "UserPromptSubmit", ["UPS-TWO"]),
    ]
    assert attachments[0]["toolUseID"] != attachments[1]["toolUseID"]

    _claude(workspace, fake_model, "-p", "and now?", "--resume", session_id, "--model", MODEL)
    resumed = fake_model.requests[-1].messages()
    assert [m["role"] for m in resumed] == ["user", "assistant", "user"]
    # (Claude Code ends the text before the prompt with a newline when it joins them.)
    assert [t.rstrip("\n") for t in texts(resumed[0])] == [
        reminder("UPS-ONE"),
        reminder("UPS-TWO"),
        "first prompt",
    ]
