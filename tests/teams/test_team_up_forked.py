"""`tether team up` forks each teammate from itself (nothing to start or import again), as
`tether worker --count N` forks its workers; `TETHER_SPAWN=1` asks for new `tether team run`
processes. Either way the teammate is the same: a session of its own, its log, its stores its
own (the starter's stores still work after the fork: it reads the roster for "started"), and
`tether team down` finds and ends it, by its roster record and by its mark."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tether.teams.claims import team_processes
from tether.testing import FakeModelServer
from tether.testing.teammates import mate_answers, polite

from .mates import lead_reads, lead_store, member, new_team, status
from .workers import tether


def _cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


@pytest.mark.parametrize("spawn", [False, True], ids=["forked", "spawned"])
def test_team_up_starts_a_teammate_that_works_and_stops(
    repo: Path, model_env: FakeModelServer, store: list[str], spawn: bool
) -> None:
    model_env.responder = mate_answers(polite)
    env = {**os.environ, "TETHER_SPAWN": "1"} if spawn else dict(os.environ)
    team = new_team()
    out = tether(repo, "team", "up", team, "--member", "alice", *store, env=env)
    assert "alice: started (pid " in out
    assert ", 0 unread message(s)" in out  # the starter read its store after the fork
    alice = member(status(repo, team, *store), "alice")
    started_as = _cmdline(alice["pid"])
    # forked: the process is `team up`'s copy; spawned: a `team run` of its own
    assert ("run" in started_as) is spawn
    assert ("up" in started_as) is not spawn
    assert Path(os.readlink(f"/proc/{alice['pid']}/cwd")) == repo.resolve()
    lead = lead_store(repo, team, store[1] if store else None)
    try:
        assert [p.pid for p in team_processes(lead)] == [alice["pid"]]
        tether(repo, "team", "send", team, "alice", "what is in a.txt?", *store)
        got = lead_reads(lead, 2)
        assert [(m.sender, m.text) for m in got] == [
            ("alice", "alice got: what is in a.txt?"),
            ("alice", "alice done"),
        ]
        down = tether(repo, "team", "down", team, *store)
        assert down.splitlines() == ["alice: asked to shut down", "alice: stopped"]
        assert team_processes(lead) == []
    finally:
        lead.close()
    log = (repo / ".tether" / "teams" / team / "alice.log").read_text()
    assert "turn finished" in log
