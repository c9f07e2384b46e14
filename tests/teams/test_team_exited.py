"""A teammate whose process is gone is shown as it is, whatever its record last said.

- One that died after its claim, while it was starting (a crash, SIGKILL), is `exited (see
  its log)` in `team status`, not `starting`, and `team down` says nothing was running (and
  records it stopped). Measured before: `starting ... not running` for good, and `down` said
  nothing at all.
- One stopped by `team down` after it read the shutdown request and never answered it owes
  no reply to it: `down` recorded the shutdown as done. Measured before: `stopped ... owes a
  reply to <the shutdown's id> from team-lead`.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from tether.teams.claims import pid_runs
from tether.testing import FakeModelServer, RecordedRequest, Turn, text
from tether.testing.teammates import Letter, mate_answers, polite

from .mates import member, new_team, status, wait_state
from .test_team_down_while_starting import up_with_a_silent_server
from .workers import tether, wait_for


def test_a_teammate_dead_while_starting_is_shown_exited_and_down_says_so(
    repo: Path, model_env: FakeModelServer
) -> None:
    team, server_pid = up_with_a_silent_server(repo, model_env)
    try:
        m = member(status(repo, team), "m")
        assert (m["state"], m["running"], m["exited"]) == ("starting", True, False)
        os.kill(m["pid"], signal.SIGKILL)  # dies after its claim, saying nothing
        wait_for(lambda: not pid_runs(m["pid"]), "the teammate to be gone")
        m = member(status(repo, team), "m")
        assert (m["running"], m["exited"]) == (False, True)
        # Not left "starting" for ever: stopped, with what its log said last (measured
        # before: state "starting" with exited true).
        assert m["state"] == "stopped"
        log = f".tether/teams/{team}/m.log"
        said = (repo / log).read_text().strip().splitlines()
        assert m["stopped_why"] == (said[-1].strip() if said else None)
        line = next(
            line for line in tether(repo, "team", "status", team).splitlines() if "  m  " in line
        )
        assert f"m                exited (see {log}) not running" in line, line
        out = tether(repo, "team", "down", team, "--wait", "1")
        assert f"m: nothing was running (it had exited: see {log})" in out.splitlines(), out
        m = member(status(repo, team), "m")
        assert (m["state"], m["exited"]) == ("stopped", False)
    finally:
        if pid_runs(server_pid):
            os.kill(server_pid, signal.SIGKILL)
    assert tether(repo, "team", "down", team).splitlines() == [
        f"nothing of team {team} was running"
    ]


def test_a_teammate_stopped_by_down_owes_no_reply_to_its_shutdown(
    repo: Path, model_env: FakeModelServer
) -> None:
    def answer(mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        if letters and letters[0].kind == "shutdown_request":
            return text("not now")  # read, never answered
        return polite(mate, letters, request)

    model_env.responder = mate_answers(answer)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "a")
    wait_state(repo, team, "a", "idle")
    out = tether(repo, "team", "down", team, "--wait", "3")
    assert "a: stopped (SIGTERM after 3 s)" in out, out
    a = member(status(repo, team), "a")
    assert a["shutdown_done"]
    assert (a["state"], a["requests_owed"]) == ("stopped", [])
    assert "owes a reply" not in tether(repo, "team", "status", team)
