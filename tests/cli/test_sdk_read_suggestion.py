"""The suggestion offered for a Read outside the workspace is a rule for the session, as Claude
Code offers it: a program that echoes `ctx.suggestions` back lets the rest of the session read
there and grants no lasting read (the next session asks again). The real SDK over the wire."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claude_agent_sdk import PermissionResultAllow, ToolPermissionContext

from tests.cli.sdk_harness import SdkRun, result_of
from tether.config.settings import tether_home
from tether.testing import FakeModelServer, reply, text, tool_use


async def test_echoing_the_read_suggestion_grants_the_session_only(
    sdk: SdkRun, fake_model: FakeModelServer, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (other / name).write_text(name)
    fake_model.script(
        reply(tool_use("Read", file_path=str(other / "a.txt"))),
        reply(tool_use("Read", file_path=str(other / "b.txt"))),
        reply(text("read both")),
        reply(tool_use("Read", file_path=str(other / "c.txt"))),
        reply(text("read again")),
    )
    asked: list[tuple[str, list[Any]]] = []

    async def echo(
        name: str, tool_input: dict[str, Any], context: ToolPermissionContext
    ) -> PermissionResultAllow:
        offered = [(s.type, s.destination) for s in context.suggestions]
        asked.append((Path(tool_input["file_path"]).name, offered))
        return PermissionResultAllow(updated_permissions=context.suggestions)

    async with sdk.client(can_use_tool=echo) as client:
        await client.query("read a and b")
        first = [m async for m in client.receive_response()]
    assert result_of(first).result == "read both"
    assert asked == [("a.txt", [("addRules", "session")])]  # b.txt: the session's rule
    assert not list((tether_home() / "workspaces").glob("*.json"))  # nothing kept for later

    async with sdk.client(can_use_tool=echo) as client:  # a new session asks again
        await client.query("read c")
        second = [m async for m in client.receive_response()]
    assert result_of(second).result == "read again"
    assert [name for name, _ in asked] == ["a.txt", "c.txt"]
