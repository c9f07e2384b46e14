"""The REPL as a team's lead: a teammate's message is shown as it arrives."""

from __future__ import annotations

import asyncio
import os
import uuid
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input

from tether.cli.setup import RunOptions
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.cli_runner import run_cli_process
from tether.testing.teammates import mate_answers, member_of, polite

from .test_repl import CTRL_D, Terminal


@pytest.mark.timeout(240)
async def test_a_message_to_the_lead_shows_in_the_repl_as_it_arrives(
    model_env: FakeModelServer, workspace: Path
) -> None:
    terminal = Terminal()
    team = f"t-{uuid.uuid4().hex[:8]}"

    def respond(request: RecordedRequest) -> Turn:
        if member_of(request) is not None:
            return mate_answers(polite)(request)
        results = request.tool_results()
        if not results:
            return tool_use("TeamCreate", team_name=team)
        if results[0].startswith("Team "):
            return tool_use(
                "Task",
                description="say hello",
                prompt="hello",
                subagent_type="general-purpose",
                team_name=team,
                name="alice",
            )
        return text("alice is on it")

    model_env.responder = respond
    env = {**os.environ, "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1"}
    try:
        with create_pipe_input() as pipe:
            repl = asyncio.create_task(
                terminal.run_with(workspace, pipe, options=RunOptions(cwd=workspace, env=env))
            )
            pipe.send_text("start a team\r")
            await terminal.wait_for("alice is on it")
            await terminal.wait_for("✉ alice: alice got: hello")
            await terminal.wait_for("✉ alice (idle_notification): alice done")
            pipe.send_text(CTRL_D)
            assert await repl == 0
    finally:
        run_cli_process(["team", "down", team], env=env, cwd=workspace, timeout_s=120)
