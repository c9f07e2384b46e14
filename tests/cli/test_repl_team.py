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
from tether.testing.teammates import letters_in, mate_answers, member_of, polite

from .pty_terminal import PtyRepl
from .repl_terminal import CTRL_D, Terminal


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
        if letters_in(request.last_user_text()):
            return text("noted")
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


@pytest.mark.timeout(240)
def test_a_message_to_an_idle_lead_starts_its_turn_in_a_terminal(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    """As in Claude Code: the lead waits at its prompt with nothing typed; alice's message is
    shown and becomes the lead's next turn, without a key pressed."""
    team = f"t-{uuid.uuid4().hex[:8]}"

    def respond(request: RecordedRequest) -> Turn:
        if member_of(request) is not None:
            return mate_answers(polite)(request)
        results = request.tool_results()
        heard = letters_in(request.last_user_text())
        if heard:
            return text(" / ".join(f"lead heard {x.sender}: {x.body}" for x in heard))
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
    env = {**os.environ, "HOME": str(home), "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1"}
    terminal = PtyRepl(workspace, env)
    try:
        terminal.wait_for("> ")
        terminal.send("start a team\r")
        terminal.wait_for("alice is on it")
        terminal.wait_for("✉ alice: alice got: hello")
        terminal.wait_for("lead heard alice: alice got: hello")
        woken = [
            r for r in model_env.requests if member_of(r) is None and letters_in(r.last_user_text())
        ]
        assert woken[0].last_user_text().startswith("<teammate-message id=")
        assert "start a team" not in woken[0].last_user_text()
    finally:
        terminal.close()
        run_cli_process(["team", "down", team], env=env, cwd=workspace, timeout_s=120)
