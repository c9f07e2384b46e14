"""The first prompt of a session started with programmatic `agents=`, as the Claude Agent
SDK's session helpers read it: the prompt, not the agent types' reminder sent ahead of it
(kept after it in the file, as Claude Code keeps its attachments after the prompt)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from claude_agent_sdk import AgentDefinition, list_sessions

from tests.cli.sdk_harness import SdkRun, result_of
from tether.testing import FakeModelServer, reply, text


async def test_the_first_prompt_is_the_prompt_with_agents(
    sdk: SdkRun, fake_model: FakeModelServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", os.environ["TETHER_HOME"])
    fake_model.script(reply(text("a")), reply(text("b")))
    worker = AgentDefinition(description="does work", prompt="work")
    messages = await sdk.query("PROMPT-agents", agents={"worker": worker})
    session_id = result_of(messages).session_id
    [info] = list_sessions(directory=str(workspace))
    assert (info.session_id, info.first_prompt) == (session_id, "PROMPT-agents")
    # The model is still told the agent types ahead of the prompt, as Claude Code tells it.
    sent = fake_model.requests[0].messages()[0]["content"]
    assert "Available agent types" in sent[0]["text"]
    assert sent[1]["text"] == "PROMPT-agents"
    # Resumed, the conversation holds the listing: it is not told again.
    await sdk.query("again", agents={"worker": worker}, resume=session_id)
    again = fake_model.requests[1]
    assert again.last_user_text() == "again"
    told = [m for m in again.messages() if "Available agent types" in str(m["content"])]
    assert len(told) == 1
