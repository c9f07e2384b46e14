"""`tether team down` leaves nothing running: it goes by the teammate's process (its pid and
start time), never by what its record says."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tether.teams.processes import pid_runs, process_start, runs_as
from tether.testing import FakeModelServer
from tether.testing.teammates import mate_answers, polite

from .mates import member, new_team, status
from .workers import tether


def test_team_down_waits_for_a_teammate_still_running_its_session_end_hook(
    repo: Path, model_env: FakeModelServer, tmp_path: Path
) -> None:
    from tether.config.settings import tether_home
    from tether.config.trust import record_trust

    assert record_trust(repo, True, tether_home=tether_home(), user_home=Path.home())
    ended = tmp_path / "session-end-done"
    hook = {"type": "command", "command": f"sleep 2; touch {ended}"}
    (repo / ".tether").mkdir(exist_ok=True)
    (repo / ".tether" / "settings.json").write_text(
        json.dumps({"hooks": {"SessionEnd": [{"hooks": [hook]}]}})
    )
    model_env.responder = mate_answers(polite)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice")
    alice = member(status(repo, team), "alice")
    assert alice["pid_started"] == process_start(alice["pid"])
    out = tether(repo, "team", "down", team)
    assert out.splitlines() == ["alice: asked to shut down", "alice: stopped"]
    assert ended.exists()  # its SessionEnd hook ran to its end before down returned
    assert not pid_runs(alice["pid"])
    after = member(status(repo, team), "alice")
    assert (after["state"], after["running"], after["pid"]) == ("stopped", False, None)


def test_a_pid_taken_by_another_process_is_not_the_teammate() -> None:
    me = os.getpid()
    started = process_start(me)
    assert started is not None
    assert runs_as(me, started)
    assert runs_as(me, None)
    assert not runs_as(me, str(int(started) + 1))
