"""A teammate whose process is gone is shown as it is, whatever its record last said.

- One that died after its claim, while it was starting (a crash, SIGKILL), did not start:
  `team up`, which waits for its mailbox loop, says so and records it, and `team status` shows
  `did not start (see its log)` with the log's last line; with its starter gone too, `team
  status` says the same from the record it left, and `team down` says nothing was running.
  Measured before: `starting ... not running` for good, and `down` said nothing at all.
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
from .workers import WAIT_S, tether, wait_for


def test_a_teammate_dead_while_starting_did_not_start_and_up_says_so(
    repo: Path, model_env: FakeModelServer
) -> None:
    team, pid_file, up = up_with_a_silent_server(repo, model_env)
    server_pid = int(pid_file.read_text())
    try:
        m = member(status(repo, team), "m")
        assert (m["state"], m["running"], m["exited"]) == ("starting", True, False)
        os.kill(m["pid"], signal.SIGKILL)  # dies after its claim, saying nothing
        # `up`, waiting for its loop, says it did not start (measured before: `up` had said
        # "started" at its claim, and the member was left "starting" with exited true).
        said = up.communicate(timeout=WAIT_S)[1]
        assert up.returncode == 1
        assert "\nm: did not start (ended by SIGKILL)\n" in said, said  # no log yet: no colon
        m = member(status(repo, team), "m")
        assert (m["state"], m["running"], m["exited"]) == ("did_not_start", False, False)
        log = f".tether/teams/{team}/m.log"
        said_last = (repo / log).read_text().strip().splitlines()
        assert m["stopped_why"] == (said_last[-1].strip() if said_last else None)
        line = next(
            line for line in tether(repo, "team", "status", team).splitlines() if "  m  " in line
        )
        assert f"m                did not start (see {log}) not running" in line, line
    finally:
        if pid_runs(server_pid):
            os.kill(server_pid, signal.SIGKILL)
        if up.poll() is None:
            up.kill()
            up.communicate()
    assert tether(repo, "team", "down", team).splitlines() == [
        f"nothing of team {team} was running"
    ]


def test_a_teammate_dead_while_starting_is_shown_so_though_its_starter_died_too(
    repo: Path, model_env: FakeModelServer
) -> None:
    team, pid_file, up = up_with_a_silent_server(repo, model_env)
    server_pid = int(pid_file.read_text())
    try:
        up.kill()  # its starter gone first: nothing records how its start-up ends
        up.communicate()
        m = member(status(repo, team), "m")
        os.kill(m["pid"], signal.SIGKILL)
        wait_for(lambda: not pid_runs(m["pid"]), "the teammate to be gone")
        m = member(status(repo, team), "m")
        # Not left "starting" for ever (measured before: state "starting", exited true).
        assert (m["state"], m["running"], m["exited"]) == ("did_not_start", False, True)
        out = tether(repo, "team", "down", team, "--wait", "1")
        log = f".tether/teams/{team}/m.log"
        assert f"m: nothing was running (it had exited: see {log})" in out.splitlines(), out
        m = member(status(repo, team), "m")
        assert (m["state"], m["exited"]) == ("did_not_start", False)
    finally:
        if pid_runs(server_pid):
            os.kill(server_pid, signal.SIGKILL)


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
