"""`AgentDefinition(permissionMode=...)` from the SDK program is honoured, as Claude Code
honours it: an `acceptEdits` agent writes in the workspace unasked, while the session's own
writes are still asked; a mode that is none is refused by name. (Agents from files keep only
`plan`: a cloned repository must not grant its agents power.) The real SDK, over the wire."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import AgentDefinition, PermissionResultDeny

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use


async def _run(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path, mode: str | None
) -> list[str]:
    asked: list[str] = []

    async def deny(name: str, tool_input: dict[str, Any], context: Any) -> PermissionResultDeny:
        asked.append(name)
        return PermissionResultDeny(message="no")

    fake_model.script(
        reply(tool_use("Task", description="d", prompt="write it", subagent_type="writer")),
        reply(tool_use("Write", file_path=str(workspace / "sub.txt"), content="x")),
        reply(text("sub done")),
        reply(tool_use("Write", file_path=str(workspace / "main.txt"), content="y")),
        reply(text("main done")),
    )
    writer = AgentDefinition(description="writes", prompt="p", tools=["Write"])
    if mode is not None:
        writer.permissionMode = mode  # type: ignore[assignment]
    async with sdk.client(can_use_tool=deny, agents={"writer": writer}) as client:
        await client.query("go")
        [m async for m in client.receive_response()]
    return [a for a in asked if a not in ("Task", "Agent")]


async def test_an_accept_edits_agent_writes_unasked(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    asked = await _run(sdk, fake_model, workspace, "acceptEdits")
    assert (workspace / "sub.txt").read_text() == "x"
    assert asked == ["Write"]  # the session's own write is still asked (and denied)
    assert not (workspace / "main.txt").exists()


async def test_without_a_mode_the_agent_is_asked(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    asked = await _run(sdk, fake_model, workspace, None)
    assert asked == ["Write", "Write"]
    assert not (workspace / "sub.txt").exists()


async def test_a_mode_that_is_none_is_refused(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    with pytest.raises(Exception, match=r"agents\.writer\.permissionMode: 'yolo' is not a mode"):
        await _run(sdk, fake_model, workspace, "yolo")
    fake_model.reset()
