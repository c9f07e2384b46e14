"""The control protocol's other requests and Claude Code's other flags, driven by the real
Claude Agent SDK (and, for the command line itself, by a plain process), over the wire."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import AssistantMessage, ResultMessage, create_sdk_mcp_server, tool

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, http_error, reply, text, tool_use
from tether.testing.cli_runner import run_cli_process


@pytest.fixture
def sdk(model_env: FakeModelServer, workspace: Path, home: Path) -> SdkRun:
    return SdkRun(workspace, home)


async def test_initialize_reply_status_usage_and_model_switch(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    @tool("ping", "Answer pong", {})
    async def ping(args: dict[str, Any]) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "pong"}]}

    fake_model.script(reply(text("one")), reply(text("two")))
    async with sdk.client(mcp_servers={"box": create_sdk_mcp_server("box", tools=[ping])}) as c:
        info = await c.get_server_info()
        await c.query("first")
        [m async for m in c.receive_response()]
        status = await c.get_mcp_status()
        usage = await c.get_context_usage()
        await c.set_model("claude-haiku-4-5")
        await c.query("second")
        second = [m async for m in c.receive_response()]
    assert info is not None
    assert info["hook_on_failure_supported"] is True
    assert info["current_permission_mode"] == "default"
    assert isinstance(info["pid"], int)
    assert {"Explore", "general-purpose", "Plan"} <= {a["name"] for a in info["agents"]}
    [server] = status["mcpServers"]
    assert (server["name"], server["status"], server["scope"]) == ("box", "connected", "sdk")
    assert [t["name"] for t in server["tools"]] == ["ping"]
    assert usage["totalTokens"] > 0
    assert usage["totalTokens"] == sum(c["tokens"] for c in usage["categories"])
    assert fake_model.requests[1].body["model"] == "claude-haiku-4-5"
    replies = [m for m in second if isinstance(m, AssistantMessage)]
    assert [m.model for m in replies] == ["claude-haiku-4-5"]


async def test_structured_output(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "integer"}},
        "required": ["answer"],
    }
    fake_model.script(
        reply(tool_use("StructuredOutput", answer="four")),
        reply(tool_use("StructuredOutput", answer=4)),
        reply(text("Done.")),
    )
    messages = await sdk.query("2+2?", output_format={"type": "json_schema", "schema": schema})
    [result] = [m for m in messages if isinstance(m, ResultMessage)]
    assert result.structured_output == {"answer": 4}
    assert fake_model.requests[1].tool_result_errors() == [True]  # the first did not fit
    assert "StructuredOutput" in fake_model.requests[0].system()


async def test_fallback_model(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(
        http_error(404, "model: claude-sonnet-5-5 not found", "not_found_error"),
        reply(text("from the fallback")),
    )
    messages = await sdk.query("hi", fallback_model="claude-haiku-4-5")
    assert [r.body["model"] for r in fake_model.requests] == [
        fake_model.requests[0].body["model"],
        "claude-haiku-4-5",
    ]
    [answer] = [m for m in messages if isinstance(m, AssistantMessage)]
    assert answer.model == "claude-haiku-4-5"


async def test_inline_settings(sdk: SdkRun, fake_model: FakeModelServer, workspace: Path) -> None:
    fake_model.script(reply(tool_use("Bash", command="touch denied")), reply(text("ok")))
    messages = await sdk.query(
        "go",
        permission_mode="bypassPermissions",
        settings=json.dumps({"permissions": {"deny": ["Bash(touch *)"]}}),
    )
    assert not (workspace / "denied").exists()
    [result] = [m for m in messages if isinstance(m, ResultMessage)]
    assert [d["tool_input"] for d in result.permission_denials or []] == [
        {"command": "touch denied"}
    ]


def test_unknown_flags_warn_and_consume_their_value(
    model_env: FakeModelServer, workspace: Path
) -> None:
    model_env.script(reply(text("fine")))
    user = {"type": "user", "message": {"role": "user", "content": "hello"}}
    result = run_cli_process(
        [
            "--output-format",
            "stream-json",
            "--verbose",
            "--input-format",
            "stream-json",
            "--brand-new-flag",
            "its-value",
            "--betas",
            "some-beta",
            "--session-mirror",
            "--cwd",
            str(workspace),
        ],
        stdin=json.dumps(user) + "\n",
    )
    assert result.exit_code == 0, result.stderr
    assert "unknown option --brand-new-flag" in result.stderr
    assert "--betas is a Claude Code option tether does not act on" in result.stderr
    lines = result.json_lines()
    assert lines[-1]["type"] == "system"  # idle, after the result
    [final] = [line for line in lines if line["type"] == "result"]
    assert final["result"] == "fine"
    assert model_env.requests[0].last_user_text() == "hello"


def test_stream_json_input_keeps_serving_until_its_input_ends(
    model_env: FakeModelServer, workspace: Path
) -> None:
    model_env.script(reply(text("one")), reply(text("two")))
    users = [
        {"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": t}]}}
        for t in ("first", "second")
    ]
    result = run_cli_process(
        ["-p", "--output-format", "stream-json", "--input-format", "stream-json"],
        cwd=workspace,
        stdin="".join(json.dumps(u) + "\n" for u in users) + "not json\n",
    )
    assert result.exit_code == 0, result.stderr
    results = [line["result"] for line in result.json_lines() if line["type"] == "result"]
    assert results == ["one", "two"]
    assert "input line is not JSON" in result.stderr
