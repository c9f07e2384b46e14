"""Claude Code's `system/status` lines over the wire with the real Claude Agent SDK:
`requesting` before each request to the model (only for a client of partial messages, as
Claude Code), and a compaction's `compacting` then `status: null` with its `compact_result`,
before its `compact_boundary`."""

from __future__ import annotations

from typing import Any

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use


def _system(sdk: SdkRun) -> list[tuple[str, Any]]:
    return [
        (line["subtype"], line.get("status"))
        for line in sdk.lines()
        if line["type"] == "system" and line["subtype"] in ("status", "compact_boundary")
    ]


async def test_requesting_before_each_request_with_partial_messages(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    await sdk.query("go", permission_mode="bypassPermissions", include_partial_messages=True)
    kinds = [
        "status" if line["type"] == "system" and line["subtype"] == "status" else line["type"]
        for line in sdk.lines()
        if line["type"] in ("system", "assistant", "user", "result")
        and line.get("subtype") not in ("init", "session_state_changed")
    ]
    assert kinds == ["status", "assistant", "user", "status", "assistant", "result"]
    assert _system(sdk) == [("status", "requesting"), ("status", "requesting")]
    sdk.assert_lines_parse()


async def test_no_requesting_lines_without_partial_messages(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    await sdk.query("go", permission_mode="bypassPermissions")
    assert _system(sdk) == []


async def test_a_compaction_says_compacting_then_its_result(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(
        reply(text("hello")), reply(text("<summary>what was said</summary>")), reply(text("on"))
    )
    async with sdk.client() as client:
        for prompt in ("first", "/compact", "next"):
            await client.query(prompt)
            [m async for m in client.receive_response()]
    assert _system(sdk) == [
        ("status", "compacting"),
        ("status", None),
        ("compact_boundary", None),
    ]
    ended = [line for line in sdk.lines() if line.get("subtype") == "status"][-1]
    assert ended["compact_result"] == "success"
    sdk.assert_lines_parse()
