"""Images end to end, with the real Claude Agent SDK over the wire: a user message's images and
a tool's (an SDK MCP tool's, a picture Read opens) reach the model on both wire formats (the
OpenAI-compatible one as data URLs), stay in the session file and come back on resume, and
are sized as images, not as their base64 text."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import UserMessage, create_sdk_mcp_server, query, tool

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text, tool_use


def png(width: int = 2, height: int = 2) -> bytes:
    """A valid PNG of `width` x `height` grey pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    rows = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


PNG = png()
PNG_B64 = base64.b64encode(PNG).decode()
IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}}


async def _with_image(words: str) -> Any:
    yield {
        "type": "user",
        "message": {"role": "user", "content": [IMAGE, {"type": "text", "text": words}]},
    }


async def test_a_users_image_reaches_the_model_and_stays_in_the_session(
    sdk: SdkRun, fake_model: FakeModelServer, tmp_path: Path
) -> None:
    fake_model.script(reply(text("A grey square.")), reply(text("Still grey.")))
    first = [m async for m in query(prompt=_with_image("what is this?"), options=sdk.options())]
    [message] = fake_model.requests[0].messages()
    assert [b["type"] for b in message["content"]] == ["image", "text"]
    assert message["content"][0]["source"] == IMAGE["source"]
    assert message["content"][1]["text"] == "what is this?"
    # The session file keeps it, as Claude Code writes it, and a resumed session sends it.
    [kept] = (tmp_path / "home" / "projects").glob("*/*.jsonl")  # TETHER_HOME
    users = [json.loads(line) for line in kept.read_text().splitlines()]
    assert IMAGE in [b for e in users if e["type"] == "user" for b in e["message"]["content"]]
    await sdk.query("and now?", resume=result_of(first).session_id)
    assert fake_model.requests[1].messages()[0]["content"][0]["source"] == IMAGE["source"]


async def test_a_users_image_goes_as_a_data_url_on_the_openai_wire(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("A grey square.")))
    options = sdk.options(model="openai/gpt-4.1")
    [m async for m in query(prompt=_with_image("what is this?"), options=options)]
    user = fake_model.requests[0].messages()[-1]
    assert user["content"] == [
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_B64}"}},
        {"type": "text", "text": "what is this?"},
    ]


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "openai/gpt-4.1"])
async def test_an_sdk_mcp_tools_image_reaches_the_model(
    sdk: SdkRun, fake_model: FakeModelServer, model: str
) -> None:
    @tool("snapshot", "Take a picture", {})
    async def snapshot(args: dict[str, Any]) -> dict[str, Any]:
        return {
            "content": [
                {"type": "text", "text": "here it is"},
                {"type": "image", "data": PNG_B64, "mimeType": "image/png"},
            ]
        }

    fake_model.script(reply(tool_use("mcp__cam__snapshot")), reply(text("I see grey.")))
    messages = await sdk.query(
        "look",
        model=model,
        mcp_servers={"cam": create_sdk_mcp_server("cam", tools=[snapshot])},
        allowed_tools=["mcp__cam__snapshot"],
    )
    [result] = [m for m in messages if isinstance(m, UserMessage)]
    assert result.tool_use_result == [{"type": "text", "text": "here it is"}, IMAGE]
    sent = fake_model.requests[1].messages()
    if model.startswith("openai/"):
        # A tool message takes text only: the image follows in a user message.
        tool_message, images = sent[-2], sent[-1]
        assert (tool_message["role"], tool_message["content"]) == ("tool", "here it is")
        assert images["role"] == "user"
        assert images["content"][-1] == {
            "type": "image_url",
            "image_url": {"url": f"data:image/png;base64,{PNG_B64}"},
        }
    else:
        [answer] = [b for b in sent[-1]["content"] if b["type"] == "tool_result"]
        assert answer["content"] == [{"type": "text", "text": "here it is"}, IMAGE]


async def test_read_shows_pictures_sized_as_images(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    (workspace / "shot.png").write_bytes(PNG)
    # Two pictures of about 370 kB: together some 330,000 tokens if their base64 were counted
    # as text, past the window; as images they fit.
    big = PNG[:33] + bytes(370_000)
    (workspace / "big1.png").write_bytes(big)
    (workspace / "big2.png").write_bytes(big)
    (workspace / "huge.png").write_bytes(PNG[:33] + bytes(500_000))
    fake_model.script(
        reply(
            tool_use("Read", file_path="shot.png"),
            tool_use("Read", file_path="big1.png"),
            tool_use("Read", file_path="big2.png"),
            tool_use("Read", file_path="huge.png"),
        ),
        reply(text("Pictures.")),
    )
    window = {"TETHER_CONTEXT_WINDOW": str(fake_model.context_window)}  # the server's own
    messages = await sdk.query("look", permission_mode="bypassPermissions", env=window)
    results = [m.tool_use_result for m in messages if isinstance(m, UserMessage)]
    assert results[0] == {
        "type": "image",
        "file": {"base64": PNG_B64, "type": "image/png", "originalSize": len(PNG)},
    }
    shot, big1, big2, huge = fake_model.requests[1].messages()[-1]["content"]
    assert shot["content"][-1] == IMAGE
    assert big1["content"][-1]["source"]["data"] == base64.b64encode(big).decode()
    assert big2["content"][-1]["source"]["data"] == base64.b64encode(big).decode()
    assert huge["is_error"] is True
    assert "too large to show" in huge["content"]
    assert len(fake_model.requests) == 2  # no compaction, no cutting: it fit
    assert result_of(messages).result == "Pictures."
