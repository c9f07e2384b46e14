"""An SDK MCP tool's output past the limits, with the real Claude Agent SDK over the wire: the
model reads the head and a note stating the output's original size (not the size of the text
one cut already left)."""

from __future__ import annotations

from typing import Any

from claude_agent_sdk import create_sdk_mcp_server, tool

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use


async def test_the_cut_note_states_the_original_size(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    @tool("big", "A big answer", {"n": int})
    async def big(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "x" * 1_500_000}]}

    fake_model.script(reply(tool_use("mcp__data__big", n=1)), reply(text("ok")))
    await sdk.query(
        "go",
        mcp_servers={"data": create_sdk_mcp_server("data", tools=[big])},
        allowed_tools=["mcp__data__big"],
    )
    [result] = fake_model.requests[1].tool_results()
    assert result.startswith("x" * 1000)
    assert len(result) < 100_200
    assert "1,500,000 characters" in result
