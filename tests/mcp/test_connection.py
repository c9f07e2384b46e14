"""The MCP client runtime against our own streamable-HTTP server (the SDK's `MCPServer` on
127.0.0.1): tools, calls, errors, content, resources, prompts, timeouts and cancellation; and
the exposed names and content conversion on their own."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    GetPromptResult,
    ImageContent,
    PromptMessage,
    ResourceLink,
    TextContent,
    TextResourceContents,
)
from pydantic import BaseModel

from tether.mcp.content import block_text, prompt_text, tool_result
from tether.mcp.manager import (
    McpError,
    McpManager,
    McpPrompt,
    McpPromptArgument,
    McpResource,
    McpResult,
    ServerStatus,
    probe_servers,
)
from tether.mcp.names import MAX_NAME_CHARS, NameMap, exposed_name
from tether.mcp.servers import McpLimits
from tether.protocol import Base64ImageSource, ImageBlock
from tether.slotted import replaced
from tether.testing.mcp_http_server import PIXEL_PNG, HttpKind, McpHttpServer

from .conftest import FAST, http, script

# --- names -------------------------------------------------------------------------------------


def test_exposed_names_are_valid_for_the_model_apis() -> None:
    assert exposed_name("git", "git_status") == "mcp__git__git_status"
    assert exposed_name("my server", "read.file/v2") == "mcp__my_server__read_file_v2"
    assert exposed_name("ünï", "tool-1") == "mcp___n___tool-1"


def test_long_names_are_cut_and_end_in_a_hash_of_the_whole_name() -> None:
    first = exposed_name("server", "a" * 80 + "_one")
    second = exposed_name("server", "a" * 80 + "_two")
    assert len(first) == len(second) == MAX_NAME_CHARS
    assert first[:55] == second[:55] == f"mcp__server__{'a' * 42}"
    assert first != second
    assert exposed_name("server", "a" * 80 + "_one") == first


def test_names_that_come_out_the_same_are_made_unique() -> None:
    names = NameMap()
    assert names.add("s", "a.b") == "mcp__s__a_b"
    assert names.add("s", "a_b") == "mcp__s__a_b_2"
    assert names.add("s", "a-b") == "mcp__s__a-b"
    assert names.add("s", "a.b") == "mcp__s__a_b"
    assert names.resolve("mcp__s__a_b_2") == ("s", "a_b")
    assert names.resolve("mcp__s__nothing") is None


# --- content -----------------------------------------------------------------------------------


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _wire(model: BaseModel) -> dict[str, Any]:
    """The SDK's object as the wire carries it (what `content` reads)."""
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def test_each_kind_of_content_block_becomes_text() -> None:
    blocks = [
        TextContent(text="plain"),
        ImageContent(data=_b64(b"12345"), mime_type="image/png"),
        AudioContent(data=_b64(b"1234567"), mime_type="audio/wav"),
        EmbeddedResource(resource=TextResourceContents(uri="file:///a.txt", text="inside")),
        EmbeddedResource(
            resource=BlobResourceContents(
                uri="file:///b.bin", mime_type="application/zip", blob=_b64(b"xy")
            )
        ),
        ResourceLink(uri="file:///c.md", name="c.md"),
    ]
    assert [block_text(_wire(b)) for b in blocks] == [
        "plain",
        "[image: image/png, 5 bytes]",
        "[audio: audio/wav, 7 bytes]",
        "inside",
        "[resource file:///b.bin (application/zip), 2 bytes]",
        "[resource link: file:///c.md c.md]",
    ]


def test_structured_content_is_shown_only_when_no_block_has_text() -> None:
    only_structured = CallToolResult(content=[], structured_content={"n": 1})
    both = CallToolResult(content=[TextContent(text="n is 1")], structured_content={"n": 1})
    assert tool_result(_wire(only_structured), 1000) == McpResult('{\n  "n": 1\n}')
    assert tool_result(_wire(both), 1000) == McpResult("n is 1")


def test_a_long_result_is_cut_with_a_note() -> None:
    result = CallToolResult(content=[TextContent(text="x" * 250)], is_error=True)
    assert tool_result(_wire(result), 100) == McpResult(
        "x" * 100 + "\n\n[output cut: 150 of 250 characters not shown]",
        is_error=True,
        full_chars=250,
    )


def test_prompt_messages_name_their_roles_only_when_both_speak() -> None:
    def message(role: Any, text: str) -> PromptMessage:
        return PromptMessage(role=role, content=TextContent(text=text))

    one_role = GetPromptResult(messages=[message("user", "a"), message("user", "b")])
    two_roles = GetPromptResult(messages=[message("user", "q"), message("assistant", "a")])
    assert prompt_text(_wire(one_role)) == "a\n\nb"
    assert prompt_text(_wire(two_roles)) == "User: q\n\nAssistant: a"


# --- our streamable-HTTP server ----------------------------------------------------------------


@pytest.fixture
async def demo(http_server: McpHttpServer) -> Any:
    async with McpManager([http("demo", http_server.url)], FAST) as manager:
        yield manager


async def test_tools_are_listed_with_their_names_schemas_and_hints(demo: McpManager) -> None:
    assert demo.statuses() == {"demo": ServerStatus("connected", tools=5)}
    assert demo.problems() == []
    tools = demo.tools()
    assert [(t.server, t.name, t.exposed, t.read_only) for t in tools] == [
        ("demo", "add", "mcp__demo__add", True),
        ("demo", "echo", "mcp__demo__echo", True),
        ("demo", "image", "mcp__demo__image", True),
        ("demo", "fail", "mcp__demo__fail", False),
        ("demo", "sleep", "mcp__demo__sleep", False),
    ]
    add = tools[0]
    assert add.description == "Add two integers."
    assert add.input_schema["type"] == "object"
    assert add.input_schema["required"] == ["a", "b"]


async def test_calls_return_text_errors_and_described_images(demo: McpManager) -> None:
    assert await demo.call("mcp__demo__add", {"a": 2, "b": 3}) == McpResult("5")
    assert await demo.call("mcp__demo__echo", {"text": "hi"}) == McpResult("hi")
    assert await demo.call("mcp__demo__fail", {"message": "no"}) == McpResult(
        "Error executing tool fail: no", is_error=True
    )
    # An image the model can see is passed on as an image (a resource's blob is described).
    pixel = Base64ImageSource(media_type="image/png", data=base64.b64encode(PIXEL_PNG).decode())
    assert await demo.call("mcp__demo__image", {}) == McpResult(
        "", images=(ImageBlock(source=pixel),)
    )
    assert await demo.call("mcp__demo__nothing", {}) == McpResult(
        "there is no MCP tool called mcp__demo__nothing", is_error=True
    )


async def test_resources_are_listed_and_read(demo: McpManager) -> None:
    listed = [
        McpResource("demo", "test://greeting", "greeting", "", "text/plain"),
        McpResource("demo", "test://pixel", "pixel", "", "image/png"),
    ]
    assert await demo.list_resources() == listed
    assert await demo.list_resources("demo") == listed
    assert await demo.read_resource("demo", "test://greeting") == McpResult(
        "hello from the demo server"
    )
    assert await demo.read_resource("demo", "test://pixel") == McpResult(
        f"[resource test://pixel (image/png), {len(PIXEL_PNG)} bytes]"
    )
    missing = await demo.read_resource("demo", "test://missing")
    assert missing.is_error
    assert missing.text.startswith('MCP server "demo" could not read test://missing: ')
    with pytest.raises(McpError, match='no MCP server called "other"'):
        await demo.list_resources("other")


async def test_prompts_are_listed_and_rendered(demo: McpManager) -> None:
    assert demo.prompts() == [
        McpPrompt(
            "demo",
            "review",
            "mcp__demo__review",
            "Ask for a review of some code.",
            (McpPromptArgument("code", "", required=True),),
        )
    ]
    text = await demo.get_prompt("demo", "review", {"code": "x = 1"})
    assert text == "Please review this code:\nx = 1"
    with pytest.raises(McpError, match='MCP server "demo" could not give prompt "nope"'):
        await demo.get_prompt("demo", "nope", {})


async def test_a_long_result_is_cut(http_server: McpHttpServer) -> None:
    limits = McpLimits(max_output_chars=10)
    async with McpManager([http("demo", http_server.url)], limits) as manager:
        result = await manager.call("mcp__demo__echo", {"text": "y" * 30})
    assert result == McpResult(
        "y" * 10 + "\n\n[output cut: 20 of 30 characters not shown]", full_chars=30
    )


async def test_a_call_that_takes_too_long_times_out_and_the_server_stays_usable(
    http_server: McpHttpServer,
) -> None:
    limits = McpLimits(startup_timeout_s=20, call_timeout_s=0.5)
    async with McpManager([http("demo", http_server.url)], limits) as manager:
        slow = await manager.call("mcp__demo__sleep", {"seconds": 30})
        assert slow == McpResult(
            'MCP tool "sleep" of server "demo" did not answer within 0.5 s', is_error=True
        )
        assert await manager.call("mcp__demo__echo", {"text": "still here"}) == McpResult(
            "still here"
        )


async def test_a_cancelled_call_ends_at_once_and_the_server_stays_usable(
    demo: McpManager,
) -> None:
    call = asyncio.create_task(demo.call("mcp__demo__sleep", {"seconds": 30}))
    await asyncio.sleep(0.2)
    call.cancel()
    done, _ = await asyncio.wait({call}, timeout=5)
    assert done == {call}
    assert call.cancelled()
    assert await demo.call("mcp__demo__add", {"a": 1, "b": 1}) == McpResult("2")
    assert demo.statuses()["demo"].state == "connected"


async def test_the_older_sse_transport_works_too() -> None:
    with McpHttpServer(kind="sse") as server:
        async with McpManager([http("old", server.url, kind="sse")], FAST) as manager:
            assert manager.statuses() == {"old": ServerStatus("connected", tools=5)}
            assert await manager.call("mcp__old__add", {"a": 40, "b": 2}) == McpResult("42")


async def test_a_stdio_server_gets_our_environment_without_secrets_its_own_and_its_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    inherited = {"RAW_TEST_PLAIN": "kept", "KEYBOARD_LAYOUT": "dvorak", "AWS_REGION": "eu"}
    withheld = {
        "ANTHROPIC_API_KEY": "sk-ant-x",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:1",
        "OPENAI_API_KEY": "sk-x",
        "TETHER_TEST_OWN": "tether's",
        "GITHUB_TOKEN": "ghp_x",
        "AWS_SECRET_ACCESS_KEY": "x",
        "AWS_SESSION_TOKEN": "x",
        "STRIPE_SECRET_KEY": "x",
        "DB_PASSWORD": "x",
        "NPM_AUTHTOKEN": "x",
        "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer x",
        "CLAUDE_CODE_OAUTH_TOKEN": "x",
    }
    for name, value in {**inherited, **withheld}.items():
        monkeypatch.setenv(name, value)
    # What the configuration names is passed, secrets included: that is how a server gets one.
    own = {"RAW_SERVER_GREETING": "hello", "SERVICE_API_KEY": "given"}
    config = script("raw", "raw_server.py", **own)
    transport = dataclasses.replace(config.transport, cwd=tmp_path)
    names = [*inherited, *withheld, *own]
    async with McpManager([replaced(config, transport=transport)], FAST) as manager:
        result = await manager.call("mcp__raw__where", {"names": names})
    assert json.loads(result.text) == {
        "cwd": str(tmp_path),
        **inherited,
        **dict.fromkeys(withheld),
        **own,
    }
    assert "where was asked" not in capfd.readouterr().err


@pytest.mark.parametrize("kind", ["http", "sse"])
async def test_configured_headers_are_sent(kind: HttpKind) -> None:
    with McpHttpServer(kind=kind, required_headers={"Authorization": "Bearer sesame"}) as server:
        right = http("right", server.url, kind, headers={"Authorization": "Bearer sesame"})
        wrong = http("wrong", server.url, kind)
        async with McpManager([right, wrong], FAST) as manager:
            assert manager.statuses()["right"] == ServerStatus("connected", tools=5)
            assert manager.statuses()["wrong"] == ServerStatus(
                "failed", error=f"{server.url} answered HTTP 401 Unauthorized"
            )


async def test_after_aclose_servers_are_stopped_and_calls_are_refused(
    http_server: McpHttpServer,
) -> None:
    manager = McpManager([http("demo", http_server.url)], FAST)
    await manager.start()
    await manager.aclose()
    assert manager.statuses() == {"demo": ServerStatus("stopped")}
    assert await manager.call("mcp__demo__add", {"a": 1, "b": 1}) == McpResult(
        'MCP server "demo" is down: the MCP connections are closed', is_error=True
    )


def test_probe_servers_runs_from_synchronous_code(http_server: McpHttpServer) -> None:
    servers = [http("demo", http_server.url), http("gone", "http://127.0.0.1:9/mcp")]
    statuses = asyncio.run(probe_servers(servers, FAST))
    assert statuses["demo"] == ServerStatus("connected", tools=5)
    assert statuses["gone"].state == "failed"


async def test_servers_connect_in_the_background_and_publish_their_tools_as_each_connects(
    http_server: McpHttpServer,
) -> None:
    connected: list[str] = []
    manager = McpManager(
        [http("fast", http_server.url), script("slow", "hangs_at_initialise.py")],
        McpLimits(startup_timeout_s=3600.0),
    )
    try:
        manager.start_in_background(connected.append)
        assert manager.statuses() == {
            "fast": ServerStatus("pending"),
            "slow": ServerStatus("pending"),
        }
        assert manager.tools() == []
        await manager.connected(["fast"])
        assert connected == ["fast"]
        assert manager.statuses() == {
            "fast": ServerStatus("connected", tools=5),
            "slow": ServerStatus("pending"),
        }
        assert {t.server for t in manager.tools()} == {"fast"}
        assert await manager.call("mcp__fast__add", {"a": 40, "b": 2}) == McpResult("42")
    finally:
        await manager.aclose()  # the slow one is not waited for
    assert manager.statuses()["slow"] == ServerStatus("failed", error="connecting was cancelled")
