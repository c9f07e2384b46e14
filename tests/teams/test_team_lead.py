"""A session as a team's lead, over the wire: TeamCreate, a teammate started by the Task tool
with team_name and name, its message reaching the lead's turn before a later model call, and
the errors a lead meets."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path

from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.cli_runner import CliResult, run_cli_process
from tether.testing.teammates import letters_in, mate_answers, member_of, polite

from .mates import member, status
from .workers import WAIT_S, tether


def lead_env() -> dict[str, str]:
    return {**os.environ, "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS": "1"}


def test_a_lead_creates_a_team_spawns_a_teammate_and_hears_from_it(
    repo: Path, model_env: FakeModelServer
) -> None:
    team = f"t-{uuid.uuid4().hex[:8]}"

    def lead(request: RecordedRequest) -> Turn:
        results = request.tool_results()
        if not results:
            return tool_use("TeamCreate", team_name=team, description="read the files")
        if results[0].startswith("Team "):
            return tool_use(
                "TeamCreate",
                team_name=team,  # a second team: refused, one per session
            )
        if "one team per session" in results[0]:
            return tool_use("SendMessage", to="nobody", message="hi")
        if "no member named" in results[0]:
            return tool_use(
                "Task",
                description="read a.txt",
                prompt="what is in a.txt?",
                subagent_type="Explore",
                team_name=team,
                name="alice",
            )
        heard = [x for x in letters_in(request.last_user_text()) if x.sender == "alice"]
        if not heard:
            return tool_use("Glob", pattern="*.txt")  # work on until alice's message comes
        return text(f"lead heard: {heard[0].body}")

    done = _run_lead(model_env, repo, lead)
    try:
        assert done.exit_code == 0, done.stderr
        assert done.json()["result"] == "lead heard: alice got: what is in a.txt?"
        lead_calls = [r for r in model_env.requests if member_of(r) is None]
        errors = [(r.tool_results()[0], r.tool_result_errors()[0]) for r in lead_calls[2:4]]
        assert errors == [
            (
                f"Error: this session leads team {team!r} already: one team per session "
                "(TeamDelete it first)",
                True,
            ),
            ("Error: no member named 'nobody' in the team (members: team-lead)", True),
        ]
        spawned = lead_calls[4].tool_results()[0]
        assert spawned == (
            f"Spawned teammate alice (Explore) in team {team}: its messages will reach you as "
            "they come."
        )
        alice = member(status(repo, team), "alice")
        assert (alice["agent"], alice["running"]) == ("Explore", True)
    finally:
        tether(repo, "team", "down", team)


def test_a_lead_starts_a_teammate_in_plan_mode_with_the_task_tools_mode(
    repo: Path, model_env: FakeModelServer
) -> None:
    team = f"t-{uuid.uuid4().hex[:8]}"

    def lead(request: RecordedRequest) -> Turn:
        results = request.tool_results()
        if not results:
            return tool_use("TeamCreate", team_name=team)
        if results[0].startswith("Team "):
            return tool_use(
                "Task",
                description="plan the change",
                prompt="plan it",
                subagent_type="general-purpose",
                team_name=team,
                name="bob",
                mode="plan",
            )
        return text(results[0])

    done = _run_lead(model_env, repo, lead)
    try:
        assert done.exit_code == 0, done.stderr
        assert done.json()["result"] == (
            f"Spawned teammate bob (general-purpose, plan mode) in team {team}: its messages "
            "will reach you as they come."
        )
        bob = member(status(repo, team), "bob")
        assert (bob["agent"], bob["plan_mode"], bob["running"]) == ("general-purpose", True, True)
    finally:
        tether(repo, "team", "down", team)


def _run_lead(
    model_env: FakeModelServer, repo: Path, lead: Callable[[RecordedRequest], Turn]
) -> CliResult:
    """`tether -p` as the team's lead, answered by `lead`; its teammates answer politely."""

    def respond(request: RecordedRequest) -> Turn:
        if member_of(request) is None:
            return lead(request)
        return mate_answers(polite)(request)

    model_env.responder = respond
    return run_cli_process(
        ["-p", "start the team", "--output-format", "json"],
        env=lead_env(),
        cwd=repo,
        timeout_s=WAIT_S,
    )
