"""What a `can_use_tool` request says of the call beside its input, through the real Claude
Agent SDK, field for field as Claude Code's CLI said it for the same calls against the same
fake model: the display name, the description, the file a command would change first, and
the reason only where Claude Code gives one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claude_agent_sdk import PermissionResultAllow, ToolPermissionContext

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use

OUTSIDE = {
    "decision_reason": "Path is outside allowed working directories",
    "decision_reason_type": "workingDir",
}


async def test_each_question_says_the_call_as_claude_code_does(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "sub").mkdir()
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "elsewhere.txt"
    calls = [
        tool_use("Bash", command="rm -rf build"),
        tool_use("Bash", command="mkdir -p dist/x", description="make dist"),
        tool_use("Bash", command=f"touch {elsewhere}"),
        tool_use("Bash", command="curl https://example.com"),
        tool_use("Write", file_path=str(workspace / "sub" / "new.txt"), content="x"),
        tool_use("Write", file_path=str(out / "o.txt"), content="x"),
        tool_use("Read", file_path=str(out / "missing.txt")),
        tool_use("WebFetch", url="https://example.com/a", prompt="summarise"),
    ]
    fake_model.script(*(reply(c) for c in calls), reply(text("done")))
    seen: list[ToolPermissionContext] = []

    async def allow(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow:
        seen.append(context)
        return PermissionResultAllow()

    async with sdk.client(can_use_tool=allow) as client:
        await client.query("go")
        assert result_of([m async for m in client.receive_response()]).result == "done"

    asked = [
        {k: v for k, v in line["request"].items() if k not in ("input", "permission_suggestions")}
        for line in sdk.lines()
        if line["type"] == "control_request" and line["request"]["subtype"] == "can_use_tool"
    ]
    bash = {"subtype": "can_use_tool", "tool_name": "Bash", "display_name": "Bash"}
    assert asked == [
        {
            **bash,
            "description": "rm -rf build",
            "blocked_path": str(workspace / "build"),
            "tool_use_id": "toolu_1",
        },
        {
            **bash,
            "description": "make dist",
            "blocked_path": str(workspace / "dist" / "x"),
            "tool_use_id": "toolu_2",
        },
        {
            **bash,
            "description": f"touch {elsewhere}",
            "blocked_path": str(elsewhere),
            "tool_use_id": "toolu_3",
        },
        {
            **bash,
            "description": "curl https://example.com",
            "decision_reason": "This command requires approval",
            "decision_reason_type": "other",
            "tool_use_id": "toolu_4",
        },
        {
            "subtype": "can_use_tool",
            "tool_name": "Write",
            "display_name": "Write",
            "description": "sub/new.txt",
            "tool_use_id": "toolu_5",
        },
        {
            "subtype": "can_use_tool",
            "tool_name": "Write",
            "display_name": "Write",
            "description": str(out / "o.txt"),
            **OUTSIDE,
            "tool_use_id": "toolu_6",
        },
        {
            "subtype": "can_use_tool",
            "tool_name": "Read",
            "display_name": "Read",
            "description": str(out / "missing.txt"),
            **OUTSIDE,
            "tool_use_id": "toolu_7",
        },
        {
            "subtype": "can_use_tool",
            "tool_name": "WebFetch",
            "display_name": "WebFetch",
            "description": "https://example.com/a",
            "tool_use_id": "toolu_8",
        },
    ]
    # The SDK hands them to the callback as read.
    said = [(c.display_name, c.description, c.blocked_path, c.decision_reason) for c in seen]
    assert said == [
        (a["display_name"], a["description"], a.get("blocked_path"), a.get("decision_reason"))
        for a in asked
    ]
