"""What a hook that went on in the background says once it ends, as Claude Code delivers it,
with real hook scripts and the real Agent SDK driving a live session: the `systemMessage` and
`additionalContext` of its JSON answer reach the model with its next request; an
`asyncRewake` hook that exits with code 2 wakes the model, idle as it is, with its stderr.

Each hook waits on a named pipe the test writes to once the first turn has ended: what it
says can only come later, and the test waits for the hook's `hook_response` line, written
once tether has read its answer."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import ClaudeSDKClient, ResultMessage, SystemMessage
from prompt_toolkit.input import create_pipe_input

from tests.cli.repl_terminal import PROMPT, TURN_END, Terminal, reading
from tests.cli.sdk_harness import SdkRun
from tether.cli.setup import RunOptions
from tether.testing import FakeModelServer, reply, text, tool_use

HOOK = """\
import json, sys
sys.stdin.read()
first = sys.argv[2]
if first != "-":
    print(first, flush=True)
with open(sys.argv[1]) as f:  # blocks until the test writes
    f.read()
print(json.dumps({"systemMessage": "LINT: 2 warnings",
                  "hookSpecificOutput": {"hookEventName": "PostToolUse",
                                         "additionalContext": "style.py:3 is too long"}}))
"""

REWAKE = """\
import sys
sys.stdin.read()
with open(sys.argv[1]) as f:
    f.read()
print("ignored, stderr wins", flush=True)
sys.stderr.write("TESTS FAILED: 3 of 40\\n")
sys.exit(2)
"""


def _settings(workspace: Path, script: str, entry: dict[str, Any], first: str = "-") -> Path:
    release = workspace.parent / "release"
    os.mkfifo(release)
    path = workspace.parent / "hook.py"
    path.write_text(script)
    command = f"{sys.executable} {path} {release} '{first}'"
    hooks = {"PostToolUse": [{"matcher": "Bash", "hooks": [{"command": command, **entry}]}]}
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    return release


def _rewake_session(workspace: Path, fake_model: FakeModelServer) -> Path:
    """An asyncRewake hook after Bash, and a model that runs the tests, then fixes them."""
    release = _settings(workspace, REWAKE, {"type": "command", "asyncRewake": True})
    fake_model.script(
        reply(tool_use("Bash", command="echo tested")),
        reply(text("Tests started.")),
        reply(text("Fixing the 3 failures.")),
    )
    return release


def _options() -> dict[str, Any]:
    return {
        "permission_mode": "bypassPermissions",
        "include_hook_events": True,
        "setting_sources": ["project"],
        "extra_args": {"trust-workspace": None},
    }


async def _release(release: Path) -> None:
    await asyncio.to_thread(release.write_text, "go\n")


async def _until_hook_response(client: ClaudeSDKClient) -> SystemMessage:
    async for message in client.receive_messages():
        if isinstance(message, SystemMessage) and message.subtype == "hook_response":
            return message
    raise AssertionError("no hook_response line")


@pytest.mark.timeout(90)
@pytest.mark.parametrize(
    ("entry", "first"),
    [({"type": "command", "async": True}, "-"), ({"type": "command"}, '{"async": true}')],
    ids=["configured-async", "answers-async-first"],
)
async def test_a_background_hooks_answer_reaches_the_model_with_the_next_request(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path, entry: dict[str, Any], first: str
) -> None:
    release = _settings(workspace, HOOK, entry, first)
    fake_model.script(
        reply(tool_use("Bash", command="echo built")),
        reply(text("Built.")),
        reply(text("Noted.")),
    )
    async with sdk.client(**_options()) as client:
        await client.query("build it")
        first_turn = [m async for m in client.receive_response()]
        await _release(release)
        response = await _until_hook_response(client)
        await client.query("anything else?")
        [m async for m in client.receive_response()]
    assert any(isinstance(m, ResultMessage) for m in first_turn)
    assert response.data["hook_event"] == "PostToolUse"
    assert response.data["exit_code"] == 0
    _, after_bash, second = fake_model.requests
    assert "LINT" not in json.dumps(after_bash.body)  # nothing before it ended
    sent = json.dumps(second.messages()[-1]["content"])
    assert "PostToolUse hook says: LINT: 2 warnings" in sent
    assert "PostToolUse hook additional context: style.py:3 is too long" in sent
    assert "anything else?" in sent
    assert '\\"async\\"' not in json.dumps(second.body)
    sdk.assert_lines_parse()


@pytest.mark.timeout(90)
async def test_an_async_rewake_hook_that_exits_2_wakes_the_idle_model(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path
) -> None:
    release = _rewake_session(workspace, fake_model)
    async with sdk.client(**_options()) as client:
        await client.query("run the tests")
        [m async for m in client.receive_response()]
        await _release(release)
        woken = [m async for m in client.receive_response()]
    results = [m for m in woken if isinstance(m, ResultMessage)]
    assert [r.result for r in results] == ["Fixing the 3 failures."]
    _, _, third = fake_model.requests
    told = third.last_user_text()
    assert "PostToolUse hook (run in the background) exited with code 2: TESTS FAILED: 3 of 40" in (
        told
    )
    assert "ignored, stderr wins" not in told
    sdk.assert_lines_parse()


@pytest.mark.timeout(90)
@pytest.mark.usefixtures("trusted_workspace")
async def test_an_async_rewake_hook_starts_a_turn_in_the_idle_repl(
    fake_model: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    release = _rewake_session(workspace, fake_model)
    options = RunOptions(cwd=workspace, permission_mode="bypassPermissions")
    with create_pipe_input() as pipe:
        repl = asyncio.create_task(terminal.run_with(workspace, pipe, options=options))
        pipe.send_text("run the tests\r")
        await terminal.wait_for(TURN_END)
        await terminal.drawn.wait_until(lambda drawn: reading(drawn, PROMPT))
        await _release(release)
        await terminal.wait_for(TURN_END, 2)  # a turn nobody typed
        await terminal.drawn.wait_until(lambda drawn: reading(drawn, PROMPT))
        pipe.send_text("\x04")
        assert await repl == 0
    out = terminal.output
    assert "⚑ PostToolUse hook (run in the background) exited with code 2: TESTS FAILED" in out
    assert "Fixing the 3 failures." in out
    told = fake_model.requests[2].last_user_text()
    assert "exited with code 2: TESTS FAILED: 3 of 40" in told
