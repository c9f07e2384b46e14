"""A lead whose teammate hangs (its model never answers: no message, no idle) and that polls
meanwhile is told the teammate looks hung, by name and since when, then its turn ends at the
bound for waiting. Before, work handed to a teammate was headway for as long as it was owed,
and such a lead polled for ever."""

from __future__ import annotations

import json
import threading
import uuid
from pathlib import Path

from tether.core.repeated_calls import IDLE_NOTE_AT, WAITING_STOP_AT
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.cli_runner import run_cli_process
from tether.testing.teammates import member_of

from .test_team_lead import lead_env
from .workers import WAIT_S, tether

CAP = 3 * WAITING_STOP_AT
HUNG = "alice looks hung: no change since "


def test_a_lead_polling_a_hung_teammate_is_told_then_stopped(
    repo: Path, model_env: FakeModelServer
) -> None:
    team = f"t-{uuid.uuid4().hex[:8]}"
    release = threading.Event()
    (repo / "a.txt").write_text("a\n")

    def respond(request: RecordedRequest) -> Turn:
        if member_of(request) is not None:
            release.wait(WAIT_S)  # the teammate's model never answers
            return text("too late")
        results = request.tool_results()
        if not results:
            return tool_use("TeamCreate", team_name=team, description="read the files")
        if results[0].startswith("Team "):
            return tool_use(
                "Task",
                description="read a.txt",
                prompt="what is in a.txt?",
                subagent_type="Explore",
                team_name=team,
                name="alice",
            )
        if request.index >= CAP:
            return text("gave up")
        return tool_use("Glob", pattern="*.txt")  # checks on things while alice works

    model_env.responder = respond
    try:
        done = run_cli_process(
            ["-p", "start the team", "--output-format", "json"],
            env={**lead_env(), "TETHER_HUNG_AFTER_MS": "0"},  # hung at once: no wait for it
            cwd=repo,
            timeout_s=WAIT_S,
        )
        assert done.exit_code == 1, done.stdout + done.stderr
        result = done.json()["errors"][0]
        idle = f"stopped: the model looked at nothing new in {WAITING_STOP_AT}"
        assert result.startswith(idle), result
        assert HUNG in result
        lead_calls = [r for r in model_env.requests if member_of(r) is None]
        told = [r.index for r in lead_calls if HUNG in json.dumps(r.messages()[-1])]
        assert len(told) == WAITING_STOP_AT - IDLE_NOTE_AT
    finally:
        release.set()
        tether(repo, "team", "down", team, "--wait", "1")  # its model never agrees to stop
