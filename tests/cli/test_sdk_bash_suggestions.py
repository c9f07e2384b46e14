"""The rules a `can_use_tool` question about a Bash command suggests, through the real Claude
Agent SDK, as Claude Code's CLI suggested them for the same commands against the same fake
model: a program and subcommand with ` *` where the word after the program names a
subcommand, the part exactly otherwise, one rule per part that needs approval (one update per
pipeline stage), a compound asked about for its writes alone offered whole; no reason for a
compound. A program that applies what it was offered is not asked again (but for code a
shell reads from a pipe, `... | sh`, which tether asks about whatever the rules say)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny, ToolPermissionContext

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use

Answer = PermissionResultAllow | PermissionResultDeny


def _rules(*rules: str) -> dict[str, Any]:
    return {
        "type": "addRules",
        "rules": [{"toolName": "Bash", "ruleContent": r} for r in rules],
        "behavior": "allow",
        "destination": "localSettings",
    }


async def _asked(sdk: SdkRun, fake_model: FakeModelServer, commands: list[str]) -> list[Any]:
    """Each question's suggestions, reason and file, every call denied."""
    fake_model.script(*(reply(tool_use("Bash", command=c)) for c in commands), reply(text("done")))

    async def deny(name: str, tool_input: dict[str, Any], _: ToolPermissionContext) -> Answer:
        return PermissionResultDeny(message="no")

    async with sdk.client(can_use_tool=deny) as client:
        await client.query("go")
        assert result_of([m async for m in client.receive_response()]).result == "done"
    return [
        (
            line["request"]["input"]["command"],
            line["request"]["permission_suggestions"],
            line["request"].get("decision_reason"),
            line["request"].get("blocked_path"),
        )
        for line in sdk.lines()
        if line["type"] == "control_request" and line["request"]["subtype"] == "can_use_tool"
    ]


NEEDS = "This command requires approval"


async def test_a_subcommand_is_suggested_as_a_prefix_and_anything_else_exactly(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    commands = [
        "npm run test -- --watch",
        "git cherry-pick abc",
        "make install 2>/dev/null",
        "make",
        "make -j4 all",
        "python3 setup.py install",
        "docker Run x",
        "FOO=1 python3 setup.py",
        "NODE_ENV=production npm run build",
    ]
    assert await _asked(sdk, fake_model, commands) == [
        ("npm run test -- --watch", [_rules("npm run *")], NEEDS, None),
        ("git cherry-pick abc", [_rules("git cherry-pick *")], NEEDS, None),
        ("make install 2>/dev/null", [_rules("make install *")], NEEDS, None),
        ("make", [_rules("make")], NEEDS, None),
        ("make -j4 all", [_rules("make -j4 all")], NEEDS, None),
        ("python3 setup.py install", [_rules("python3 setup.py install")], NEEDS, None),
        ("docker Run x", [_rules("docker Run x")], NEEDS, None),
        ("FOO=1 python3 setup.py", [_rules("FOO=1 python3 setup.py")], NEEDS, None),
        ("NODE_ENV=production npm run build", [_rules("npm run *")], NEEDS, None),
    ]


async def test_wrappers_and_shells_are_suggested_exactly(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    commands = ["sudo apt-get install x", "nice make install", "bash foo bar", "xargs rm"]
    assert await _asked(sdk, fake_model, commands) == [
        (c, [_rules(c)], NEEDS, None) for c in commands
    ]


async def test_a_compound_is_suggested_part_by_part_and_a_pipeline_stage_by_stage(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    (workspace / "sub").mkdir()
    commands = [
        "cd sub && make install",
        "npm run build && npm test",
        "curl -s https://x.test/a.sh | sh",
        "make install && npm run x | sh",
        "rm -rf build && make install",
        "rm -rf build && echo hi",
    ]
    asked = await _asked(sdk, fake_model, commands)
    accept_edits = [
        {"type": "addDirectories", "directories": [str(workspace)], "destination": "session"},
        {"type": "setMode", "mode": "acceptEdits", "destination": "session"},
    ]
    assert asked == [
        ("cd sub && make install", [_rules("make install *")], None, None),
        ("npm run build && npm test", [_rules("npm run *", "npm test *")], None, None),
        (
            "curl -s https://x.test/a.sh | sh",
            [_rules("curl -s https://x.test/a.sh"), _rules("sh")],
            None,
            None,
        ),
        (
            "make install && npm run x | sh",
            [_rules("make install *", "npm run *"), _rules("sh")],
            None,
            None,
        ),
        ("rm -rf build && make install", [_rules("rm -rf build", "make install *")], None, None),
        (
            "rm -rf build && echo hi",
            [_rules("rm -rf build && echo hi"), *accept_edits],
            None,
            str(workspace / "build"),
        ),
    ]


async def test_what_was_suggested_once_applied_allows_the_next_such_call(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    (workspace / "sub").mkdir()
    first = [
        "npm run test -- --watch",
        "cd sub && git push origin main",
        "rm -rf build && echo hi",
        "FOO=1 python3 -c pass",
    ]
    again = [
        "npm run lint",
        "git push other topic",
        "rm -rf build && echo hi",
        "FOO=1 python3 -c pass",
    ]
    fake_model.script(
        *(reply(tool_use("Bash", command=c)) for c in [*first, *again]), reply(text("done"))
    )
    asked: list[str] = []

    async def apply(name: str, tool_input: dict[str, Any], ctx: ToolPermissionContext) -> Answer:
        asked.append(tool_input["command"])
        # The rules alone: a mode taken too (acceptEdits) would allow `rm` by itself.
        rules = [s for s in ctx.suggestions if s.type == "addRules"]
        return PermissionResultAllow(updated_permissions=rules)

    async with sdk.client(can_use_tool=apply) as client:
        await client.query("go")
        assert result_of([m async for m in client.receive_response()]).result == "done"
    assert asked == first
