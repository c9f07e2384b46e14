"""A hook's `systemMessage` (its word for the user) reaches an SDK client as the bundled Claude
Code sends it (checked side by side on the fake server): a `system/informational` line at the
level `notice`, naming the hook (`PreToolUse:Bash says: ...`), when the hook has answered.
Before, tether dropped it: neither the stream, stderr nor the model had it. The real SDK over
the wire, with the client's callbacks and with a command hook of a settings file."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from claude_agent_sdk import AssistantMessage, HookMatcher, SystemMessage, UserMessage

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use

EVENTS = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")


def _saying(event: str) -> Any:
    async def hook(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        return {"systemMessage": f"SAID-{event}"}

    return hook


def _told(messages: list[Any]) -> list[str]:
    """The informational lines' words, and where they came among the messages."""
    said: list[str] = []
    for message in messages:
        if isinstance(message, SystemMessage) and message.subtype == "informational":
            assert message.data["level"] == "notice"
            said.append(message.data["content"])
        elif isinstance(message, AssistantMessage):
            said.append("<assistant>")
        elif isinstance(message, UserMessage):
            said.append("<tool result>")
    return said


async def test_the_clients_hooks_system_messages_reach_it(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    messages = await sdk.query(
        "go",
        permission_mode="bypassPermissions",
        hooks={event: [HookMatcher(hooks=[_saying(event)])] for event in EVENTS},
    )
    assert _told(messages) == [
        "UserPromptSubmit says: SAID-UserPromptSubmit",
        "<assistant>",
        "PreToolUse:Bash says: SAID-PreToolUse",
        "<tool result>",
        "PostToolUse:Bash says: SAID-PostToolUse",
        "<assistant>",
        "Stop says: SAID-Stop",
    ]
    assert result_of(messages).result == "done"
    assert not any("SAID-" in line for line in sdk.stderr)  # not said twice
    sdk.assert_lines_parse()


async def test_a_command_hooks_system_message_reaches_the_client(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    script = workspace / "hook.py"
    script.write_text('import json; print(json.dumps({"systemMessage": "LINT: 2 warnings"}))\n')
    command = {"type": "command", "command": f"{shlex.quote(sys.executable)} {script}"}
    settings = {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [command]}]}}
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(json.dumps(settings))
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    messages = await sdk.query(
        "go",
        permission_mode="bypassPermissions",
        setting_sources=["project"],
        extra_args={"trust-workspace": None},
    )
    assert "PostToolUse:Bash says: LINT: 2 warnings" in _told(messages)
    sdk.assert_lines_parse()
