"""Hook context across the two programs' session files: Claude Code (the CLI the SDK bundles)
resuming a session tether wrote sends a UserPromptSubmit hook's context with the first prompt
and a PostToolUse hook's at the end of its result, as tether sent them; tether resuming one
Claude Code wrote does the same. Both talk to the fake model server."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_claude_code_sessions import _claude  # pyright: ignore[reportPrivateUsage]
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]
MODEL = ("--model", "claude-sonnet-4-5")
"""A model that takes no system messages in the conversation: Claude Code gives such a
model a hook's context inside the user's message (it gives others a system message)."""

UPS = "<system-reminder>\nUserPromptSubmit hook additional context: UPS-CTX\n</system-reminder>"
POST = (
    "hi\n\n<system-reminder>\nPostToolUse:Bash hook additional context: POST-CTX\n"
    "</system-reminder>"
)


def _hooks(workspace: Path) -> None:
    def said(event: str, context: str) -> str:
        answer = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
        script = f"import json; print(json.dumps({answer!r}))"
        return f"{sys.executable} -c {json.dumps(script)}"

    settings = workspace / ".claude" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    hooks = {
        event: [{"hooks": [{"type": "command", "command": said(event, context)}]}]
        for event, context in (("UserPromptSubmit", "UPS-CTX"), ("PostToolUse", "POST-CTX"))
    }
    settings.write_text(json.dumps({"hooks": hooks}))


def _told(messages: list[dict[str, Any]]) -> tuple[bool, list[Any]]:
    """Whether the first message holds the prompt's hook context, and the results' texts."""
    first, results = messages[0]["content"], messages[2]["content"]
    blocks = first if isinstance(first, list) else [{"text": first}]
    return (
        any(UPS in block.get("text", "") for block in blocks),
        [block["content"] for block in results if block["type"] == "tool_result"],
    )


@pytest.fixture
def claude_home(monkeypatch: pytest.MonkeyPatch, model_env: FakeModelServer) -> Path:
    home = Path(os.environ["TETHER_HOME"])
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home))
    return home


@pytest.mark.usefixtures("claude_home", "trusted_workspace")
def test_claude_code_resumes_tether_hook_context(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _hooks(workspace)
    fake_model.script(
        reply(text("look"), tool_use("Bash", command="echo hi")),
        reply(text("it says hi")),
        reply(text("resumed")),
    )
    first = tether(
        "-p", "first prompt", "--output-format", "json", "--allowedTools", "Bash", *MODEL
    )
    assert first.exit_code == 0, first.stderr
    (workspace / ".claude" / "settings.json").unlink()
    session_id = first.json()["session_id"]
    _claude(workspace, fake_model, "-p", "and now?", "--resume", session_id, *MODEL)
    has_ups, results = _told(fake_model.requests[2].messages())
    assert (has_ups, results) == (True, [POST])


@pytest.mark.usefixtures("claude_home", "trusted_workspace")
def test_tether_resumes_claude_code_hook_context(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    _hooks(workspace)
    fake_model.script(
        reply(text("look"), tool_use("Bash", command="echo hi")),
        reply(text("it says hi")),
        reply(text("resumed")),
    )
    started = _claude(workspace, fake_model, "-p", "first prompt", "--allowedTools", "Bash", *MODEL)
    (workspace / ".claude" / "settings.json").unlink()
    resumed = tether("-p", "and now?", "--resume", str(started["session_id"]), *MODEL)
    assert resumed.exit_code == 0, resumed.stderr
    has_ups, results = _told(fake_model.requests[2].messages())
    assert (has_ups, results) == (True, [POST])
