"""tether's stream-json lines beside Claude Code's own, field for field: the same SDK script
runs against the real Claude Code CLI (bundled in the claude-agent-sdk wheel) and against
tether, both on the fake model server; each kind of line tether writes has only fields Claude
Code's line of that kind has (tether's own version aside), and every field the SDK reads."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import ClaudeAgentOptions, query

from tests.cli.sdk_harness import RecordingTransport, SdkRun
from tether.testing import FakeModelServer, reply, text, tool_use

BUNDLED = Path(__import__("claude_agent_sdk").__file__).parent / "_bundled" / "claude"
TETHER_ONLY = {"tether_version"}
"""Fields tether adds: its own version beside the Claude Code contract it speaks."""


def script(fake_model: FakeModelServer) -> None:
    fake_model.script(
        reply(text("Let me look."), tool_use("Bash", command="echo hi")),
        reply(text("It says hi.")),
    )


async def claude_code(
    prompt: str, workspace: Path, tmp_path: Path, **overrides: Any
) -> RecordingTransport:
    """Run `prompt` through the SDK with the Claude Code CLI it bundles (a home of its own,
    every permission granted, partial messages on); its lines are in the transport. A run
    that ends in an error result (the SDK raises) keeps its lines too."""
    claude_home = tmp_path / "claude-home"
    env: dict[str, str] = overrides.pop("env", {})
    options = ClaudeAgentOptions(
        cli_path=str(BUNDLED),
        cwd=str(workspace),
        permission_mode="bypassPermissions",
        include_partial_messages=True,
        **overrides,
        env={
            **env,
            "HOME": str(claude_home),
            "CLAUDE_CONFIG_DIR": str(claude_home / ".claude"),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            # Claude Code refuses bypassPermissions as root unless told it runs in a sandbox.
            **({"IS_SANDBOX": "1"} if os.geteuid() == 0 else {}),
        },
    )
    transport = RecordingTransport(prompt, options)
    with contextlib.suppress(Exception):
        [m async for m in query(prompt=prompt, options=options, transport=transport)]
    return transport


def kind(line: dict[str, Any]) -> str:
    if line["type"] == "stream_event":
        return f"stream_event/{line['event']['type']}"
    if line["type"] == "assistant":
        return f"assistant/{line['message']['content'][0]['type']}"
    return f"{line['type']}/{line.get('subtype', '')}"


def fields(lines: list[dict[str, Any]]) -> dict[str, set[str]]:
    """Per kind of line, its fields (and its message's, as `message.<field>`)."""
    found: dict[str, set[str]] = {}
    for line in lines:
        if line["type"].startswith("control_"):
            continue
        keys = set(line) | {f"message.{k}" for k in line.get("message", {})}
        found.setdefault(kind(line), set()).update(keys)
    return found


@pytest.mark.skipif(not BUNDLED.exists(), reason="this claude-agent-sdk wheel bundles no CLI")
async def test_lines_have_claude_codes_fields(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    script(model_env)
    run = SdkRun(workspace, home)
    await run.query(
        "what does it say?", permission_mode="bypassPermissions", include_partial_messages=True
    )
    ours = fields(run.lines())

    script(model_env)
    transport = await claude_code("what does it say?", workspace, tmp_path)
    theirs = fields(transport.lines)

    assert set(ours) <= set(theirs) | {"system/session_state_changed"}
    for name, keys in ours.items():
        extra = keys - theirs.get(name, set()) - TETHER_ONLY
        assert not extra, f"{name}: fields Claude Code does not write: {sorted(extra)}"
    for name in ("assistant/text", "assistant/tool_use", "user/", "result/success", "system/init"):
        missing = theirs[name] & SDK_READS.get(name.split("/")[0], set()) - ours[name]
        assert not missing, f"{name}: fields the SDK reads that tether leaves out: {missing}"
    run.assert_lines_parse()


COMMANDS = (
    "printf 'hi\\n'",
    "printf '\\n  \\n  indented  \\n\\n'",
    "printf 'a\\r\\nb\\r\\n'",
    "printf ' \\t\\n\\n'",
    "true",
    "printf 'out\\n'; printf 'err\\n' >&2; exit 3",
    "printf '\\n'; exit 2",
)
"""Commands whose output starts or ends with white space, or is none, or fails."""


@pytest.mark.skipif(not BUNDLED.exists(), reason="this claude-agent-sdk wheel bundles no CLI")
async def test_command_output_reaches_the_model_and_the_sdk_as_claude_codes(
    model_env: FakeModelServer, workspace: Path, home: Path, tmp_path: Path
) -> None:
    # By command: Claude Code answers parallel calls in the order they finish.
    def commands() -> dict[str, str]:
        [calls] = [m for m in model_env.requests[-1].messages() if m["role"] == "assistant"][-1:]
        return {b["id"]: b["input"]["command"] for b in calls["content"] if b["type"] == "tool_use"}

    def results(lines: list[dict[str, Any]]) -> dict[str, tuple[object, object]]:
        """What the SDK is given of each call: the result block's text, the tool's result."""
        named = commands()
        return {
            named[block["tool_use_id"]]: (
                _without_error_prefix(block["content"]),
                line["tool_use_result"],
            )
            for line in lines
            if line["type"] == "user"
            for block in line["message"]["content"]
            if block.get("type") == "tool_result"
        }

    def sent() -> dict[str, tuple[object, bool]]:
        """What the model is given of each call: the result's text and error flag."""
        named = commands()
        [answers] = [m for m in model_env.requests[-1].messages() if m["role"] == "user"][-1:]
        return {
            named[block["tool_use_id"]]: (
                _without_error_prefix(block["content"]),
                bool(block.get("is_error")),
            )
            for block in answers["content"]
            if block.get("type") == "tool_result"
        }

    def script() -> None:
        calls = (tool_use("Bash", command=command) for command in COMMANDS)
        model_env.script(reply(*calls), reply(text("done")))

    script()
    run = SdkRun(workspace, home)
    await run.query("run them", permission_mode="bypassPermissions")
    ours, ours_sent = results(run.lines()), sent()
    script()
    theirs = results((await claude_code("run them", workspace, tmp_path)).lines)

    assert (ours, ours_sent) == (theirs, sent())
    assert len(ours) == len(COMMANDS)


def _without_error_prefix(content: object) -> object:
    """tether says `Error: ` before the text of any failed call, of every tool (the model
    reads it so); Claude Code's tools each word their own failures. The rest is compared."""
    return content.removeprefix("Error: ") if isinstance(content, str) else content


SDK_READS = {
    "assistant": {
        "message.content",
        "message.model",
        "message.id",
        "message.usage",
        "message.stop_reason",
        "parent_tool_use_id",
        "session_id",
        "uuid",
    },
    "user": {"message.content", "parent_tool_use_id", "tool_use_result", "uuid"},
    "result": {
        "subtype",
        "duration_ms",
        "duration_api_ms",
        "is_error",
        "num_turns",
        "session_id",
        "stop_reason",
        "total_cost_usd",
        "usage",
        "result",
        "modelUsage",
        "permission_denials",
        "uuid",
    },
    "system": {"subtype", "session_id", "tools", "model", "cwd", "permissionMode", "mcp_servers"},
}
"""What `claude_agent_sdk._internal.message_parser` (and its callers) read of each kind."""
