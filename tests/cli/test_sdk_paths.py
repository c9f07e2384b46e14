"""The paths hooks and permission callbacks judge are the ones a call will touch: the file tools'
paths made absolute (symlinks followed, `..` taken) once, before any hook, rule or callback,
as Claude Code gives them; the model's own call keeps what it wrote (in the stream, the
history and the session file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    AssistantMessage,
    HookMatcher,
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
    ToolUseBlock,
)

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use


async def _prompt() -> Any:
    yield {"type": "user", "message": {"role": "user", "content": "go"}}


async def test_callbacks_see_absolute_paths_and_can_keep_writes_inside(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (workspace / "link").symlink_to(outside)
    (workspace / "sub").mkdir()
    fake_model.script(
        reply(
            tool_use("Write", file_path="../escape.txt", content="x"),
            tool_use("Write", file_path="link/through.txt", content="x"),
            tool_use("Write", file_path="./sub/../inside.txt", content="x"),
            tool_use("Grep", pattern="x", path="sub"),
        ),
        reply(text("done")),
    )
    hooked: list[tuple[str, dict[str, Any]]] = []
    asked: list[tuple[str, dict[str, Any]]] = []

    async def pre(hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        hooked.append((hook_input["tool_name"], hook_input["tool_input"]))
        return {}

    async def only_inside(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow | PermissionResultDeny:
        # A typical client policy: writes under the workspace only.
        asked.append((name, tool_input))
        if tool_input["file_path"].startswith(f"{workspace}/"):
            return PermissionResultAllow()
        return PermissionResultDeny(message="outside the project")

    options = sdk.options(
        can_use_tool=only_inside, hooks={"PreToolUse": [HookMatcher(hooks=[pre])]}
    )
    from claude_agent_sdk import query

    messages = [m async for m in query(prompt=_prompt(), options=options)]

    escape, through, inside = (
        str(tmp_path / "escape.txt"),
        str(outside / "through.txt"),
        str(workspace / "inside.txt"),
    )
    assert hooked == [
        ("Write", {"file_path": escape, "content": "x"}),
        ("Write", {"file_path": through, "content": "x"}),
        ("Write", {"file_path": inside, "content": "x"}),
        ("Grep", {"pattern": "x", "path": str(workspace / "sub")}),
    ]
    assert asked == hooked[:3]  # Grep reads in the workspace: nobody is asked
    assert not (tmp_path / "escape.txt").exists()
    assert not (outside / "through.txt").exists()
    assert (workspace / "inside.txt").read_text() == "x"

    # The model's call is kept as it wrote it: in the stream, the history and the file.
    written = ["../escape.txt", "link/through.txt", "./sub/../inside.txt"]
    streamed = [
        block.input.get("file_path")
        for m in messages
        if isinstance(m, AssistantMessage)
        for block in m.content
        if isinstance(block, ToolUseBlock) and block.name == "Write"
    ]
    assert streamed == written
    sent = [
        block["input"]["file_path"]
        for block in fake_model.requests[1].messages()[-2]["content"]
        if block["type"] == "tool_use" and block["name"] == "Write"
    ]
    assert sent == written
    [transcript] = (tmp_path / "home" / "projects").glob("*/*.jsonl")  # TETHER_HOME
    saved = [
        block["input"].get("file_path")
        for line in transcript.read_text().splitlines()
        if (entry := json.loads(line)).get("type") == "assistant"
        for block in entry["message"]["content"]
        if block["type"] == "tool_use" and block["name"] == "Write"
    ]
    assert saved == written
