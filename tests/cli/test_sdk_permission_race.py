"""A PermissionRequest hook beside `can_use_tool`, with the real Claude Agent SDK over the wire:
as the bundled Claude Code CLI does on the same script, the client is asked while the hook
fires, and the first decision wins; the other question is withdrawn."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use

GUARD = 60  # seconds: a question that never comes fails the test instead of hanging it


def _decision(behavior: str, **more: Any) -> dict[str, Any]:
    decision = {"behavior": behavior, **more}
    return {"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": decision}}


async def test_the_hooks_decision_wins_while_the_client_has_not_answered(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Write", file_path="a.txt", content="model")), reply(text("done"))
    )
    client_asked = asyncio.Event()
    seen: list[str] = []

    async def hook(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        async with asyncio.timeout(GUARD):
            await client_asked.wait()  # both are asked at once
        seen.append("hook decides")
        return _decision("allow", updatedInput={**hook_input["tool_input"], "content": "hook"})

    async def decide(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow:
        seen.append("client asked")
        client_asked.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            seen.append("client's question withdrawn")
            raise
        return PermissionResultAllow()

    await sdk.query(
        "go", can_use_tool=decide, hooks={"PermissionRequest": [HookMatcher(hooks=[hook])]}
    )
    assert (workspace / "a.txt").read_text() == "hook"
    assert seen == ["client asked", "hook decides", "client's question withdrawn"]
    sdk.assert_lines_parse()


async def test_the_clients_answer_wins_while_the_hook_has_not_decided(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(reply(tool_use("Bash", command="touch made")), reply(text("done")))
    hook_fired = asyncio.Event()
    seen: list[str] = []

    async def hook(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        seen.append("hook fired")
        hook_fired.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            seen.append("hook withdrawn")
            raise
        return _decision("allow")

    async def decide(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultDeny:
        async with asyncio.timeout(GUARD):
            await hook_fired.wait()
        seen.append("client denies")
        return PermissionResultDeny(message="the client says no")

    await sdk.query(
        "go", can_use_tool=decide, hooks={"PermissionRequest": [HookMatcher(hooks=[hook])]}
    )
    assert not (workspace / "made").exists()
    assert "the client says no" in fake_model.requests[1].tool_results()[0]
    assert seen == ["hook fired", "client denies", "hook withdrawn"]
    sdk.assert_lines_parse()
