"""An SDK program's MCP servers as Claude Code takes them: a server whose name has a space or a
dot is connected (its tools' names made valid for the model), and a server the program turns
off (`toggle_mcp_server`) has its tools taken out of the requests until it is on again. The
real SDK, over the wire."""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import SystemMessage, create_sdk_mcp_server, tool

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use

TOOL = "mcp__my_server_x__do_it_now"


def _server(calls: list[dict[str, Any]]) -> Any:
    @tool("do_it_now", "Does it", {"what": str})
    async def do_it_now(args: dict[str, Any]) -> dict[str, Any]:
        calls.append(args)
        return {"content": [{"type": "text", "text": "DONE-42"}]}

    return create_sdk_mcp_server("my.server x", tools=[do_it_now])


async def test_a_server_name_with_a_space_and_a_dot_is_connected(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    calls: list[dict[str, Any]] = []
    fake_model.script(reply(tool_use(TOOL, what="it")), reply(text("done")))
    messages = await sdk.query(
        "go", mcp_servers={"my.server x": _server(calls)}, permission_mode="bypassPermissions"
    )
    assert not result_of(messages).is_error
    assert calls == [{"what": "it"}]
    assert "DONE-42" in str(fake_model.requests[1].body)
    [init] = [m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init"]
    assert [s["name"] for s in init.data["mcp_servers"]] == ["my.server x"]
    assert TOOL in init.data["tools"]
    sdk.assert_lines_parse()


async def test_a_server_turned_off_has_its_tools_left_out_until_it_is_on_again(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("one")), reply(text("two")), reply(text("three")))
    options: dict[str, Any] = {"mcp_servers": {"my.server x": _server([])}}
    async with sdk.client(**options) as client:
        for step in ("on", "off", "on again"):
            if step == "off":
                await client.toggle_mcp_server("my.server x", False)
            elif step == "on again":
                await client.toggle_mcp_server("my.server x", True)
            await client.query(step)
            async for _ in client.receive_response():
                pass
    offered = [TOOL in r.tool_names() for r in fake_model.requests]
    assert offered == [True, False, True]
    sdk.assert_lines_parse()
