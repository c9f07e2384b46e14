"""A session Claude Code wrote with parallel tool calls, resumed by tether through the Claude
Agent SDK: Claude Code writes each call of such a reply as a branch of its own (one entry per
block, each result hanging off its own call's entry), and reads the whole reply back. tether
sends every call and every result Claude Code itself sends on resuming the same file, nothing
answered as lost and nothing said to be damaged; a reply whose calls ran while it streamed (its
entries alternating with results on one chain) is resent, as by Claude Code, as one reply."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.cli.sdk_harness import SdkRun, result_of
from tests.cli.test_claude_code_sessions import _claude  # pyright: ignore[reportPrivateUsage]
from tether.testing import FakeModelServer, reply, text, tool_use

sdk_package = pytest.importorskip("claude_agent_sdk")
CLAUDE = Path(sdk_package.__file__).parent / "_bundled" / "claude"


def exchanges(messages: list[dict[str, Any]]) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """Each message's tool calls and results: (role, [(type, id, what)]), where `what` is a
    call's command or a result's text (without the reminder Claude Code appends to a result
    of the newest exchange: the tokens left, which tether does not send)."""
    found: list[tuple[str, list[tuple[str, str, str]]]] = []
    for message in messages:
        content = message["content"]
        blocks: list[tuple[str, str, str]] = []
        for block in content if isinstance(content, list) else []:
            if block["type"] == "tool_use":
                blocks.append(("tool_use", block["id"], block["input"]["command"]))
            elif block["type"] == "tool_result":
                said = block["content"]
                said = said if isinstance(said, str) else json.dumps(said)
                blocks.append(("tool_result", block["tool_use_id"], said.split("\n\n<system-")[0]))
        if blocks:
            found.append((message["role"], blocks))
    return found


@pytest.mark.skipif(not CLAUDE.exists(), reason="this claude-agent-sdk wheel bundles no CLI")
async def test_tether_resumes_parallel_calls_claude_code_wrote(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", os.environ["TETHER_HOME"])
    fake_model.script(
        reply(tool_use("Bash", command="echo one"), tool_use("Bash", command="echo two")),
        reply(
            tool_use("Bash", command="echo three"),
            tool_use("Bash", command="echo four"),
            tool_use("Bash", command="sh -c 'echo bad; exit 4'"),
        ),
        # Streamed slowly, Claude Code runs each call as its block completes: the reply's
        # entries alternate with results on one chain, and it is still resent as one reply.
        reply(
            text("checking"),
            tool_use("Bash", command="echo five"),
            tool_use("Bash", command="echo six"),
            delay_s=0.3,
        ),
        reply(text("done")),
        reply(text("Claude Code resumed.")),
        reply(text("tether resumed.")),
    )
    written = _claude(workspace, fake_model, "-p", "go", "--allowedTools", "Bash")
    session_id = str(written["session_id"])
    # Claude Code's own reading of its file, in a fork (the file itself stays as written).
    _claude(workspace, fake_model, "-p", "and now?", "--resume", session_id, "--fork-session")
    claude_sent = fake_model.requests[-1].messages()

    messages = await sdk.query("and now?", resume=session_id)
    assert result_of(messages).result == "tether resumed."
    tether_sent = fake_model.requests[-1].messages()
    expected = [
        ("assistant", [("tool_use", "toolu_1", "echo one"), ("tool_use", "toolu_2", "echo two")]),
        ("user", [("tool_result", "toolu_1", "one"), ("tool_result", "toolu_2", "two")]),
        (
            "assistant",
            [
                ("tool_use", "toolu_3", "echo three"),
                ("tool_use", "toolu_4", "echo four"),
                ("tool_use", "toolu_5", "sh -c 'echo bad; exit 4'"),
            ],
        ),
        (
            "user",
            [
                ("tool_result", "toolu_3", "three"),
                ("tool_result", "toolu_4", "four"),
                ("tool_result", "toolu_5", "Exit code 4\nbad"),
            ],
        ),
        ("assistant", [("tool_use", "toolu_6", "echo five"), ("tool_use", "toolu_7", "echo six")]),
        ("user", [("tool_result", "toolu_6", "five"), ("tool_result", "toolu_7", "six")]),
    ]
    # The results come in the order the calls finished, as Claude Code wrote and sends them.
    assert exchanges(tether_sent) == exchanges(claude_sent)
    assert [(role, sorted(blocks)) for role, blocks in exchanges(tether_sent)] == expected
    assert [m["role"] for m in tether_sent] == ["user", "assistant"] * 4 + ["user"]
    assert not [line for line in sdk.stderr if "session file" in line], sdk.stderr
