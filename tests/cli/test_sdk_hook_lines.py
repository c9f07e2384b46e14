"""What an SDK client hears of hooks, as Claude Code tells it: with `include_hook_events`,
hook lines for the hooks of settings files but none for the client's own callbacks; and no
Notification hook when a permission question goes to the client (a program, not a person).
The real SDK over the wire."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    HookMatcher,
    PermissionResultAllow,
    SystemMessage,
    ToolPermissionContext,
    query,
)

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use


async def test_hook_lines_are_for_settings_hooks_not_the_clients_callbacks(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    (workspace / ".claude").mkdir()
    command = {"type": "command", "command": "touch post-hook-ran"}
    settings = {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [command]}]}}
    (workspace / ".claude" / "settings.json").write_text(json.dumps(settings))
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("ok")))
    called: list[str] = []

    async def callback(hook_input: Any, tool_use_id: str | None, context: Any) -> Any:
        called.append(hook_input["hook_event_name"])
        return {}

    messages = await sdk.query(
        "go",
        permission_mode="bypassPermissions",
        include_hook_events=True,
        setting_sources=["project"],
        extra_args={"trust-workspace": None},
        hooks={"PreToolUse": [HookMatcher(hooks=[callback])]},
    )
    lines = [
        (m.subtype, m.data.get("hook_event"))
        for m in messages
        if isinstance(m, SystemMessage) and m.subtype.startswith("hook_")
    ]
    assert lines == [("hook_started", "PostToolUse"), ("hook_response", "PostToolUse")]
    assert called == ["PreToolUse"]
    assert (workspace / "post-hook-ran").exists()
    sdk.assert_lines_parse()


async def test_asking_the_client_fires_no_notification_hook(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(reply(tool_use("Bash", command="touch asked")), reply(text("done")))
    fired: list[str] = []
    asked: list[str] = []

    async def hook(hook_input: Any, tool_use_id: str | None, context: Any) -> Any:
        fired.append(hook_input["hook_event_name"])
        return {}

    async def decide(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow:
        asked.append(name)
        return PermissionResultAllow()

    async def prompt() -> Any:
        yield {"type": "user", "message": {"role": "user", "content": "go"}}

    options = sdk.options(
        can_use_tool=decide,
        hooks={e: [HookMatcher(hooks=[hook])] for e in ("Notification", "PreToolUse")},
    )

    messages = [m async for m in query(prompt=prompt(), options=options)]
    assert result_of(messages).result == "done"
    assert asked == ["Bash"]
    assert fired == ["PreToolUse"]
    assert (workspace / "asked").exists()
