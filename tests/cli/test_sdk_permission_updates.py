"""The permission updates an SDK program answers `can_use_tool` with (`updatedPermissions`),
applied as Claude Code applies them: rules of every behavior added, replaced or removed, and
directories, for the destination named. The real SDK drives tether over the wire."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from claude_agent_sdk import (
    AgentDefinition,
    Message,
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionUpdate,
    SystemMessage,
    ToolPermissionContext,
)
from claude_agent_sdk.types import PermissionRuleValue

from tests.cli.sdk_harness import SdkRun, result_of
from tether.config.settings import tether_home
from tether.testing import FakeModelServer, reply, text, tool_use

Answer = PermissionResultAllow | PermissionResultDeny


def _rules(kind: str, behavior: str, *rules: str, destination: str = "session") -> PermissionUpdate:
    values = [PermissionRuleValue(tool_name="Bash", rule_content=r) for r in rules]
    return PermissionUpdate(
        type=kind,  # type: ignore[arg-type]
        rules=values,
        behavior=behavior,  # type: ignore[arg-type]
        destination=destination,  # type: ignore[arg-type]
    )


async def test_a_session_deny_holds_at_once_and_a_directory_is_added(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    fake_model.script(
        reply(tool_use("Bash", command="python3 -c pass")),
        reply(tool_use("Bash", command="mkdir baddir")),
        reply(tool_use("Write", file_path=str(other / "n.txt"), content="N")),
        reply(text("done")),
    )
    asked: list[str] = []

    async def decide(name: str, tool_input: dict[str, Any], _: ToolPermissionContext) -> Answer:
        asked.append(name)
        update = PermissionUpdate(
            type="addDirectories", directories=[str(other)], destination="session"
        )
        return PermissionResultAllow(
            updated_permissions=[_rules("addRules", "deny", "mkdir baddir"), update]
        )

    async with sdk.client(can_use_tool=decide, permission_mode="acceptEdits") as client:
        await client.query("go")
        messages = [m async for m in client.receive_response()]
    result = result_of(messages)
    # Asked once: the deny holds for the next call (over the mode's allow), the Write lands
    # in the added directory unasked.
    assert asked == ["Bash"]
    assert not (workspace / "baddir").exists()
    assert (other / "n.txt").read_text() == "N"
    assert [d["tool_name"] for d in result.permission_denials or []] == ["Bash"]
    assert result.result == "done"


async def test_an_ask_rule_asks_for_a_call_the_rules_would_allow(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.txt").write_text("A")
    fake_model.script(
        reply(tool_use("Bash", command="mkdir okdir")),
        reply(tool_use("Read", file_path=str(other / "a.txt"))),
        reply(tool_use("Bash", command="echo hi")),
        reply(text("done")),
    )
    asked: list[str] = []

    async def decide(name: str, tool_input: dict[str, Any], _: ToolPermissionContext) -> Answer:
        asked.append(tool_input.get("command") or tool_input.get("file_path") or "")
        update = PermissionUpdate(
            type="addDirectories", directories=[str(other)], destination="session"
        )
        return PermissionResultAllow(
            updated_permissions=[_rules("addRules", "ask", "echo hi"), update]
        )

    async with sdk.client(can_use_tool=decide) as client:
        await client.query("go")
        messages = [m async for m in client.receive_response()]
    # The Read in the added directory is not asked; `echo hi`, read-only, is.
    assert asked == ["mkdir okdir", "echo hi"]
    assert result_of(messages).result == "done"


async def test_rules_are_replaced_and_removed_and_a_saved_deny_is_kept(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="mkdir one")),
        reply(tool_use("Bash", command="mkdir two")),
        reply(tool_use("Bash", command="mkdir three")),
        reply(tool_use("Bash", command="mkdir four")),
        reply(text("done")),
    )
    asked: list[str] = []

    async def decide(name: str, tool_input: dict[str, Any], _: ToolPermissionContext) -> Answer:
        command = tool_input["command"]
        asked.append(command)
        if command == "mkdir one":
            # two and three allowed; then the allow of three removed; four denied and kept.
            return PermissionResultAllow(
                updated_permissions=[
                    _rules("addRules", "allow", "mkdir zero"),
                    _rules("replaceRules", "allow", "mkdir two", "mkdir three"),
                    _rules("removeRules", "allow", "mkdir three"),
                    _rules("addRules", "deny", "mkdir four", destination="localSettings"),
                ]
            )
        return PermissionResultAllow()

    async with sdk.client(can_use_tool=decide) as client:
        await client.query("go")
        messages = [m async for m in client.receive_response()]
    assert asked == ["mkdir one", "mkdir three"]
    assert [(workspace / d).is_dir() for d in ("one", "two", "three", "four")] == [
        True,
        True,
        True,
        False,
    ]
    assert result_of(messages).result == "done"
    saved = list((tether_home() / "workspaces").glob("*.json"))
    assert len(saved) == 1
    assert json.loads(saved[0].read_text())["permissions"]["deny"] == ["Bash(mkdir four)"]


async def test_a_rule_that_cannot_be_read_is_left_out_with_a_warning(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Bash", command="mkdir one")),
        reply(tool_use("Bash", command="mkdir two")),
        reply(text("done")),
    )

    async def decide(name: str, tool_input: dict[str, Any], _: ToolPermissionContext) -> Answer:
        bad = PermissionUpdate(
            type="addRules",
            rules=[PermissionRuleValue(tool_name="Ba sh", rule_content=None)],
            behavior="deny",
            destination="session",
        )
        return PermissionResultAllow(
            updated_permissions=[bad, _rules("addRules", "allow", "mkdir two")]
        )

    async with sdk.client(can_use_tool=decide) as client:
        await client.query("go")
        messages = [m async for m in client.receive_response()]
    assert (workspace / "two").is_dir()
    assert result_of(messages).result == "done"
    assert any("not applied" in line for line in sdk.stderr)


async def _delegate(sdk: SdkRun, interrupt: bool) -> tuple[list[Any], list[Message], str]:
    asked: list[Any] = []

    async def decide(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext) -> Answer:
        if name in ("Task", "Agent"):
            assert ctx.agent_id is None
            return PermissionResultAllow()
        asked.append((name, ctx.agent_id))
        return PermissionResultDeny(message="SUB-DENIED", interrupt=interrupt)

    worker = AgentDefinition(description="w", prompt="work", tools=["Write"])
    async with sdk.client(can_use_tool=decide, agents={"worker": worker}) as client:
        await client.query("delegate")
        messages = [m async for m in client.receive_response()]
        await client.query("then")
        following = [m async for m in client.receive_response()]
    return asked, messages, str(result_of(following).result)


async def test_a_subagents_denial_is_counted_and_its_interrupt_stops_only_it(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Task", description="d", prompt="SUBP", subagent_type="worker")),
        reply(tool_use("Write", file_path=str(workspace / "s.txt"), content="x")),
        reply(text("main after")),
        reply(text("next prompt answer")),
    )
    asked, messages, following = await _delegate(sdk, interrupt=True)
    result = result_of(messages)
    assert len(asked) == 1
    assert asked[0][0] == "Write"
    assert asked[0][1]  # the subagent's id, as Claude Code sends it
    assert not (workspace / "s.txt").exists()
    # The subagent stopped without another model call; the main agent went on.
    assert (result.subtype, result.result) == ("success", "main after")
    assert [d["tool_name"] for d in result.permission_denials or []] == ["Write"]
    told = fake_model.requests[2].tool_results()[0]
    assert "stopped" in told
    notes = [m.data for m in messages if isinstance(m, SystemMessage)]
    assert [n["status"] for n in notes if n.get("subtype") == "task_notification"] == ["stopped"]
    assert following == "next prompt answer"


async def test_a_subagents_denial_without_interrupt_is_counted(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(
        reply(tool_use("Task", description="d", prompt="SUBP", subagent_type="worker")),
        reply(tool_use("Write", file_path=str(workspace / "s.txt"), content="x")),
        reply(text("sub after deny")),
        reply(text("main after")),
        reply(text("next prompt answer")),
    )
    asked, messages, following = await _delegate(sdk, interrupt=False)
    result = result_of(messages)
    assert (result.subtype, result.result) == ("success", "main after")
    assert [d["tool_name"] for d in result.permission_denials or []] == ["Write"]
    assert asked[0][1]
    assert following == "next prompt answer"
