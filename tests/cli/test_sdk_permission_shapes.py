"""Permission questions asked of a Claude Agent SDK program (`can_use_tool`) as Claude Code asks
them: in plan mode, with Claude Code's suggestions, and an allow with the user's own input
told to the model as Claude Code tells it. The real SDK drives tether over the wire."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    PermissionResultAllow,
    PermissionResultDeny,
    ToolPermissionContext,
)

from tests.cli.sdk_harness import SdkRun, result_of
from tether.config.settings import tether_home
from tether.testing import FakeModelServer, reply, text, tool_use

Answer = PermissionResultAllow | PermissionResultDeny


async def test_an_allow_with_the_users_content_is_told_to_the_model(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Write", file_path="f.txt", content="proposed")),
        reply(tool_use("Write", file_path="g.txt", content="kept")),
        reply(text("done")),
    )

    async def decide(name: str, tool_input: dict[str, Any], _: ToolPermissionContext) -> Answer:
        if tool_input["file_path"].endswith("f.txt"):
            return PermissionResultAllow(updated_input={**tool_input, "content": "the user's"})
        return PermissionResultAllow()  # the SDK sends the input back unchanged

    async with sdk.client(can_use_tool=decide) as client:
        await client.query("write them")
        messages = [m async for m in client.receive_response()]
    assert (workspace / "f.txt").read_text() == "the user's"
    first = fake_model.requests[1].tool_results()[0]
    assert first.endswith(" The user modified your proposed content before accepting it.")
    second = fake_model.requests[2].tool_results()[0]
    assert "modified" not in second
    results = [
        line["tool_use_result"] for line in sdk.lines() if line.get("tool_use_result") is not None
    ]
    assert [r["userModified"] for r in results] == [True, False]
    assert result_of(messages).result == "done"
    sdk.assert_lines_parse()


async def test_plan_mode_asks_the_client_for_a_write(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Write", file_path="allowed.txt", content="x")),
        reply(tool_use("Write", file_path="refused.txt", content="y")),
        reply(tool_use("Read", file_path="allowed.txt")),
        reply(text("done")),
    )
    asked: list[tuple[str, list[Any]]] = []

    async def decide(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext) -> Answer:
        asked.append((name, ctx.suggestions))
        if tool_input["file_path"].endswith("allowed.txt"):
            return PermissionResultAllow()
        return PermissionResultDeny(message="stay in plan")

    async with sdk.client(can_use_tool=decide, permission_mode="plan") as client:
        await client.query("write")
        messages = [m async for m in client.receive_response()]
    # Asked for each write (not for the read), with no rule to suggest, as Claude Code asks.
    assert asked == [("Write", []), ("Write", [])]
    assert (workspace / "allowed.txt").read_text() == "x"
    assert not (workspace / "refused.txt").exists()
    questions = [
        line["request"]
        for line in sdk.lines()
        if line["type"] == "control_request" and line["request"]["subtype"] == "can_use_tool"
    ]
    assert [q.get("decision_reason_type") for q in questions] == ["mode", "mode"]
    assert "stay in plan" in fake_model.requests[2].tool_results()[0]
    assert result_of(messages).result == "done"


async def test_suggestions_have_claude_codes_shapes_and_apply(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    other = workspace.parent / "other"
    other.mkdir()
    fake_model.script(
        reply(tool_use("Bash", command="touch made")),
        reply(tool_use("Write", file_path="w.txt", content="x")),
        reply(tool_use("Write", file_path=str(other / "o.txt"), content="o")),
        reply(tool_use("Write", file_path=str(other / "p.txt"), content="p")),
        reply(tool_use("Bash", command="touch made")),
        reply(text("done")),
    )
    offered: list[list[dict[str, Any]]] = []

    async def decide(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext) -> Answer:
        offered.append([s.to_dict() for s in ctx.suggestions])
        return PermissionResultAllow(updated_permissions=ctx.suggestions)

    async with sdk.client(can_use_tool=decide) as client:
        await client.query("go")
        messages = [m async for m in client.receive_response()]
    # As Claude Code offers them (its bundled CLI, same calls): a file command the acceptEdits
    # mode would let run: its rule, saved in the local settings, the directory it works in and
    # that mode, for the session; a write outside the workspace: its directory. Applied, the
    # write in the workspace, the next one outside and the command again are not asked.
    # The rule is the part exactly: touch has no subcommands tether reads (Claude Code offers
    # `touch made *`; tether offers a prefix only for programs such as git and npm).
    assert offered == [
        [
            {
                "type": "addRules",
                "rules": [{"toolName": "Bash", "ruleContent": "touch made"}],
                "behavior": "allow",
                "destination": "localSettings",
            },
            {
                "type": "addDirectories",
                "directories": [str(workspace.resolve())],
                "destination": "session",
            },
            {"type": "setMode", "mode": "acceptEdits", "destination": "session"},
        ],
        [
            {
                "type": "addDirectories",
                "directories": [str(other.resolve())],
                "destination": "session",
            }
        ],
    ]
    assert (other / "p.txt").read_text() == "p"
    assert result_of(messages).result == "done"
    # Saved as the user's "always allow" answers are (not in a file of the repository).
    saved = list((tether_home() / "workspaces").glob("*.json"))
    assert len(saved) == 1
    assert "Bash(touch made)" in saved[0].read_text()


async def test_a_write_outside_the_workspace_offers_the_mode_then_its_directory(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    # As Claude Code offers them from the default mode: acceptEdits for the session, then the
    # file's directory.
    other = workspace.parent / "other"
    other.mkdir()
    fake_model.script(
        reply(tool_use("Write", file_path=str(other / "o.txt"), content="o")),
        reply(text("done")),
    )
    offered: list[list[dict[str, Any]]] = []

    async def decide(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext) -> Answer:
        offered.append([s.to_dict() for s in ctx.suggestions])
        return PermissionResultDeny(message="no")

    async with sdk.client(can_use_tool=decide) as client:
        await client.query("go")
        [m async for m in client.receive_response()]
    assert offered == [
        [
            {"type": "setMode", "mode": "acceptEdits", "destination": "session"},
            {
                "type": "addDirectories",
                "directories": [str(other.resolve())],
                "destination": "session",
            },
        ]
    ]
    assert not (other / "o.txt").exists()
