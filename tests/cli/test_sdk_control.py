"""The control protocol's other requests and Claude Code's other flags, driven by the real
Claude Agent SDK (and, for the command line itself, by a plain process), over the wire."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import AssistantMessage, ResultMessage, create_sdk_mcp_server, tool

from tests.cli.sdk_harness import SdkRun
from tether.testing import FakeModelServer, http_error, reply, text, tool_use
from tether.testing.cli_runner import run_cli_process


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
    assert info["account"] == {  # Claude Code's fields (accountInfo)
        "tokenSource": "none",
        "apiKeySource": "ANTHROPIC_API_KEY",
        "apiProvider": "firstParty",
    }
    assert info["current_permission_mode"] == "default"
    assert isinstance(info["pid"], int)
    assert {"Explore", "general-purpose", "Plan"} <= {a["name"] for a in info["agents"]}
    [server] = status["mcpServers"]
    # Claude Code's scope for a program's own server (before: "sdk").
    assert (server["name"], server["status"], server["scope"]) == ("box", "connected", "dynamic")
    assert [t["name"] for t in server["tools"]] == ["ping"]
    assert usage["totalTokens"] > 0
    used = [c for c in usage["categories"] if c["kind"] == "used"]
    assert usage["totalTokens"] == sum(c["tokens"] for c in used)
    # Claude Code's shape: every category has an id and a kind, and the window is accounted
    # for whole (used, the compaction buffer, the free space).
    assert {c["id"] for c in usage["categories"]} >= {"messages", "free_space"}
    assert sum(c["tokens"] for c in usage["categories"]) == usage["maxTokens"]
    assert usage["autoCompactThreshold"] < usage["maxTokens"]
    assert usage["autocompactSource"] == "auto"
    assert usage["mcpInstructions"] == []
    assert usage["slashCommands"]["totalCommands"] >= 0
    assert usage["skills"]["includedSkills"] == len(usage["skills"]["skillFrontmatter"])
    assert usage["messageBreakdown"]["assistantMessageTokens"] > 0
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
            "--debug-file",
            "some-file",
            "--session-mirror",
            "--cwd",
            str(workspace),
        ],
        stdin=json.dumps(user) + "\n",
    )
    assert result.exit_code == 0, result.stderr
    assert "unknown option --brand-new-flag" in result.stderr
    assert "--debug-file" not in result.stderr  # Claude Code's diagnostics: accepted quietly
    lines = result.json_lines()
    assert lines[-1]["type"] == "system"  # idle, after the result
    [final] = [line for line in lines if line["type"] == "result"]
    assert final["result"] == "fine"
    assert model_env.requests[0].last_user_text() == "hello"


def test_start_up_notices_reach_stderr_as_with_p(
    model_env: FakeModelServer, workspace: Path
) -> None:
    """A client program's user must learn that the project's hooks were skipped (an untrusted
    workspace) on the SDK's path too, not only with -p."""
    (workspace / ".claude").mkdir()
    hook = {"hooks": [{"type": "command", "command": "touch fired"}]}
    (workspace / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [hook]}})
    )
    model_env.script(reply(text("fine")))
    user = {"type": "user", "message": {"role": "user", "content": "hello"}}
    result = run_cli_process(
        [
            *("--output-format", "stream-json", "--verbose", "--input-format", "stream-json"),
            *("--cwd", str(workspace)),
        ],
        stdin=json.dumps(user) + "\n",
    )
    assert result.exit_code == 0, result.stderr
    assert "tether: the workspace is not trusted: skipped 1 hook" in result.stderr
    assert not (workspace / "fired").exists()


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


def test_a_line_nested_past_the_parser_is_ignored_like_other_garbage(
    model_env: FakeModelServer, workspace: Path
) -> None:
    """A line 1,500 arrays deep (and objects 100,000 deep inside a message) crashed the
    process with RecursionError: the message after them was never run."""
    model_env.script(reply(text("still serving")))
    deep = "[" * 1500 + "]" * 1500
    deep_message = '{"type": "user", "message": {"role": "user", "content": ' + (
        '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}}"
    )
    user = {"type": "user", "message": {"role": "user", "content": "hello"}}
    result = run_cli_process(
        ["-p", "--output-format", "stream-json", "--input-format", "stream-json"],
        cwd=workspace,
        stdin=f"{deep}\n{deep_message}\n{json.dumps(user)}\n",
    )
    assert result.exit_code == 0, result.stderr
    results = [line["result"] for line in result.json_lines() if line["type"] == "result"]
    assert results == ["still serving"]
    warnings = [w for w in result.stderr.splitlines() if "input line is not JSON" in w]
    assert [w.split("; ignored")[0] for w in warnings] == [
        "tether: input line is not JSON (nested 1500 levels deep, more than the 100 allowed)",
        "tether: input line is not JSON (nested 100002 levels deep, more than the 100 allowed)",
    ]
    assert "Traceback" not in result.stderr


async def test_auto_mode_allows_workspace_edits_and_asks_the_rest(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(
        reply(
            tool_use("Write", file_path="notes.md", content="hi\n"),
            tool_use("Bash", command='python3 -c \'open("ran", "w")\''),
        ),
        reply(text("ok")),
    )
    asked: list[str] = []

    async def decide(name: str, tool_input: dict[str, Any], context: Any) -> Any:
        from claude_agent_sdk import PermissionResultDeny

        asked.append(name)
        return PermissionResultDeny(message="not that")

    messages = await sdk.query("go", permission_mode="auto", can_use_tool=decide)
    assert (workspace / "notes.md").read_text() == "hi\n"
    assert asked == ["Bash"]  # running a program is not an edit: the client is asked
    assert not (workspace / "ran").exists()
    init = messages[0]
    assert init.data["permissionMode"] == "auto"  # type: ignore[union-attr]


async def test_tools_session_id_and_thinking(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    fake_model.script(reply(text("ok")))
    session_id = "0b6f5e46-3f4e-4a8f-9c55-0f0d9c1c2a11"
    messages = await sdk.query(
        "hi", tools=["Read", "Grep"], session_id=session_id, max_thinking_tokens=2048
    )
    [request] = fake_model.requests
    assert request.tool_names() == ["Read", "Grep"]
    assert request.body.get("thinking") is not None  # the provider's form of a 2048 budget
    [result] = [m for m in messages if isinstance(m, ResultMessage)]
    assert result.session_id == session_id


async def test_strict_mcp_config_toggle_and_reconnect(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    (workspace / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"project": {"command": "does-not-exist"}}})
    )
    fake_model.script(
        reply(text("one")), reply(tool_use("mcp__demo__add", a=1, b=1)), reply(text("x"))
    )
    from tether.testing.mcp_http_server import McpHttpServer

    with McpHttpServer() as server:
        options: dict[str, Any] = {
            "mcp_servers": {"demo": {"type": "http", "url": server.url}},
            "strict_mcp_config": True,
            "allowed_tools": ["mcp__demo"],
        }
        async with sdk.client(**options) as client:
            await client.query("first")
            [m async for m in client.receive_response()]
            assert [s["name"] for s in (await client.get_mcp_status())["mcpServers"]] == ["demo"]
            await client.toggle_mcp_server("demo", False)
            status = (await client.get_mcp_status())["mcpServers"][0]["status"]
            await client.toggle_mcp_server("demo", True)
            await client.reconnect_mcp_server("demo")
            await client.query("add")
            [m async for m in client.receive_response()]
    assert status == "disabled"
    assert fake_model.requests[2].tool_results() == ["2"]


async def test_an_mcp_tool_answers_permission_questions(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    questions: list[dict[str, Any]] = []

    @tool("approve", "Decide on a tool call", {"tool_name": str, "input": dict, "tool_use_id": str})
    async def approve(args: dict[str, Any]) -> dict[str, Any]:
        questions.append(args)
        decision = {"behavior": "allow", "updatedInput": {"command": "touch approved"}}
        return {"content": [{"type": "text", "text": json.dumps(decision)}]}

    fake_model.script(reply(tool_use("Bash", command="touch asked")), reply(text("ok")))
    await sdk.query(
        "go",
        mcp_servers={"perm": create_sdk_mcp_server("perm", tools=[approve])},
        permission_prompt_tool_name="mcp__perm__approve",
    )
    assert [(q["tool_name"], q["input"]) for q in questions] == [
        ("Bash", {"command": "touch asked"})
    ]
    assert (workspace / "approved").exists()


def test_requests_tether_cannot_do_are_refused_with_a_reason(
    model_env: FakeModelServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model_env.script(reply(text("hi")))
    monkeypatch.setenv("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING", "true")  # as the SDK sets it

    def request(request_id: str, body: dict[str, Any]) -> str:
        return json.dumps({"type": "control_request", "request_id": request_id, "request": body})

    lines = [
        request("init", {"subtype": "initialize", "hooks": None}),
        request("rewind", {"subtype": "rewind_files", "user_message_id": "x"}),
        request("stop", {"subtype": "stop_task", "task_id": "bash_9"}),
        request("what", {"subtype": "brand_new_request"}),
        request("mode", {"subtype": "set_permission_mode", "mode": "sideways"}),
        json.dumps({"type": "user", "message": {"role": "user", "content": "hello"}}),
    ]
    result = run_cli_process(
        ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"],
        cwd=workspace,
        stdin="\n".join(lines) + "\n",
    )
    assert result.exit_code == 0, result.stderr
    answers = {
        line["response"]["request_id"]: line["response"]
        for line in result.json_lines()
        if line["type"] == "control_response"
    }
    assert answers["init"]["subtype"] == "success"
    errors = {key: answers[key].get("error", "") for key in ("rewind", "what", "mode")}
    assert errors["rewind"] == "No file checkpoint found for this message."
    # An unknown task: nothing to stop, done, as Claude Code answers (said on stderr).
    assert answers["stop"]["subtype"] == "success"
    assert "does not support the control request 'brand_new_request'" in errors["what"]
    assert "unknown permission mode 'sideways'" in errors["mode"]
    assert [line["result"] for line in result.json_lines() if line["type"] == "result"] == ["hi"]


@pytest.mark.parametrize("input_ended", [False, True])
def test_sigterm_ends_the_turn_and_the_process_whether_its_input_ended_or_not(
    model_env: FakeModelServer, workspace: Path, input_ended: bool
) -> None:
    """Input ended first (a client dying on Ctrl+C closes it, then the signal comes): the
    signal once dropped the end of input queued for the turns, and tether waited forever."""
    model_env.script(reply(tool_use("Bash", command="touch started; sleep 60; touch finished")))
    user = {"type": "user", "message": {"role": "user", "content": "run it"}}
    command = [sys.executable, "-m", "tether", "--output-format", "stream-json", "--verbose"]
    command += ["--input-format", "stream-json", "--permission-mode", "bypassPermissions"]
    pipe = subprocess.PIPE
    with subprocess.Popen(
        command, cwd=workspace, stdin=pipe, stdout=pipe, stderr=pipe, text=True
    ) as process:
        assert process.stdin is not None
        assert process.stdout is not None
        assert process.stderr is not None
        try:
            process.stdin.write(json.dumps(user) + "\n")
            process.stdin.flush()
            for _ in range(3000):  # a file the command writes; bounded so nothing hangs
                if (workspace / "started").exists():
                    break
                time.sleep(0.01)
            if input_ended:
                process.stdin.close()
                time.sleep(0.5)  # orders the end of input first (the test holds either way)
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)  # with stdin open too: the signal alone ends it
            out, err = process.stdout.read(), process.stderr.read()
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 128 + signal.SIGTERM, err
    [result] = [json.loads(line) for line in out.splitlines() if '"type": "result"' in line]
    assert (result["subtype"], result["errors"]) == (
        "error_during_execution",
        ["stopped by SIGTERM"],
    )
    assert not (workspace / "finished").exists()


async def test_hooks_context_and_a_failing_guard_that_blocks(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    from claude_agent_sdk import HookMatcher

    async def add_context(hook_input: Any, tool_use_id: str | None, context: Any) -> Any:
        return {
            "hookSpecificOutput": {
                "hookEventName": "UserPromptSubmit",
                "additionalContext": "The user's name is Ada.",
            }
        }

    async def broken_guard(hook_input: Any, tool_use_id: str | None, context: Any) -> Any:
        raise RuntimeError("the policy service is down")

    fake_model.script(reply(tool_use("Bash", command="touch guarded")), reply(text("ok")))
    await sdk.query(
        "hello",
        permission_mode="bypassPermissions",
        hooks={
            "UserPromptSubmit": [HookMatcher(hooks=[add_context])],
            "PreToolUse": [HookMatcher(matcher="Bash", hooks=[broken_guard], on_failure="block")],
        },
    )
    assert "The user's name is Ada." in fake_model.requests[0].last_user_text()
    assert not (workspace / "guarded").exists()
    assert "the policy service is down" in fake_model.requests[1].tool_results()[0]


def test_a_message_sent_during_a_turn_that_a_signal_stops_is_named_not_lost(
    model_env: FakeModelServer, workspace: Path
) -> None:
    """Words sent while a turn runs wait for the model's next call or the next turn; a stop
    signal ends both, so the message is named on stderr instead of vanishing."""
    model_env.script(reply(tool_use("Bash", command="touch started; sleep 60")))
    command = [sys.executable, "-m", "tether", "--output-format", "stream-json", "--verbose"]
    command += ["--input-format", "stream-json", "--permission-mode", "bypassPermissions"]
    command += ["--replay-user-messages"]
    pipe = subprocess.PIPE
    with subprocess.Popen(
        command, cwd=workspace, stdin=pipe, stdout=pipe, stderr=pipe, text=True
    ) as process:
        assert process.stdin is not None
        assert process.stdout is not None
        assert process.stderr is not None
        try:
            for words in ("run it", "QUEUED second prompt"):
                user = {"type": "user", "message": {"role": "user", "content": words}}
                process.stdin.write(json.dumps(user) + "\n")
                process.stdin.flush()
                for _ in range(3000):  # a file the command writes; bounded so nothing hangs
                    if (workspace / "started").exists():
                        break
                    time.sleep(0.01)
            for line in process.stdout:  # its echo: tether has read it
                if "QUEUED" in line:
                    break
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
            err = process.stderr.read()
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 128 + signal.SIGTERM, err
    assert (
        "tether: a message was not delivered, as tether was stopped first: 'QUEUED second prompt'"
    ) in err.splitlines()


async def test_thinking_disabled_wins_over_an_effort_level(
    sdk: SdkRun, fake_model: FakeModelServer
) -> None:
    fake_model.script(reply(text("thought")), reply(text("did not")))
    await sdk.query("hi", effort="high")
    await sdk.query("hi", effort="high", thinking={"type": "disabled"})
    thinking = [request.body.get("thinking") for request in fake_model.requests]
    assert thinking[0] is not None  # the control: high effort thinks
    assert thinking[1] is None or thinking[1].get("type") == "disabled"
    assert not any("--thinking" in line for line in sdk.stderr)  # understood, not warned about


async def test_adaptive_thinking_thinks(sdk: SdkRun, fake_model: FakeModelServer) -> None:
    # The SDK passes `--thinking adaptive` alone; Claude Code then thinks at medium effort.
    # Before, tether sent no thinking at all.
    fake_model.script(reply(text("thought")))
    await sdk.query("hi", thinking={"type": "adaptive"})
    assert fake_model.requests[0].body.get("thinking") == {"type": "adaptive"}
