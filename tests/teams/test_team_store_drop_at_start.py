"""The store drops while a teammate starts, between its claim and its mailbox loop: every
store call of its start-up waits out the outage within `--store-patience` as its loop's reads
do, and the teammate goes on to answer. Measured before: it died at once ("cannot reach the
mailbox store ... Connection refused") at its first store call after the claim."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from tether.teams.processes import pid_runs
from tether.testing import FakeModelServer
from tether.testing.redis_server import RedisServer, RedisUnavailable
from tether.testing.teammates import mate_answers, polite

from .mates import lead_reads_until, lead_store, member, new_team, status, wait_state
from .workers import WAIT_S, tether, wait_for


def test_a_teammate_survives_its_store_dropping_between_its_claim_and_its_loop(
    repo: Path, model_env: FakeModelServer
) -> None:
    try:
        server = RedisServer.start(persist=True)
    except RedisUnavailable as e:
        pytest.skip(str(e))
    model_env.responder = mate_answers(polite)
    team = new_team()
    store = ["--store", server.url]
    log = repo / ".tether" / "teams" / team / "alice.log"
    up = subprocess.Popen(
        [sys.executable, "-m", "tether", "team", "up", team, "--member", "alice", *store,
         "--store-patience", "60"],
        cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    pid: int | None = None
    lead = None
    try:
        pid = _claimed_pid(server.url, team)
        # Held still right after its claim (before its start-up's store calls), while the
        # store goes away; let go while it is away, brought back once alice said she waits.
        os.kill(pid, signal.SIGSTOP)
        server.kill()
        os.kill(pid, signal.SIGCONT)
        waits = "trying again until it answers"
        wait_for(lambda: waits in log.read_text() or not pid_runs(pid), "alice to wait or end")
        assert waits in log.read_text(), log.read_text()[-400:]
        server = RedisServer.start(port=server.port, workdir=server.workdir, persist=True)
        up.communicate(timeout=WAIT_S)
        lead = lead_store(repo, team, server.url)
        tether(repo, "team", "send", team, "alice", "one", *store)
        got = lead_reads_until(lead, "alice got: one")
        assert [m.text for m in got if m.kind == "message"] == ["alice got: one"]
        alice = wait_state(repo, team, "alice", "idle", *store)
        assert (alice["running"], alice["pid"]) == (True, pid)
        assert "answers again" in log.read_text()
        assert member(status(repo, team, *store), "alice")["exited"] is False
    finally:
        if lead is not None:
            lead.close()
        with contextlib.suppress(Exception):
            tether(repo, "team", "down", team, *store)
        if up.poll() is None:
            up.kill()
            up.communicate()
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        server.stop()


def _claimed_pid(url: str, team: str) -> int:
    """The pid alice's process writes into her record as it claims her (its first store
    write), read as soon as it is there."""
    client = redis.Redis.from_url(url)
    found: list[int] = []

    def claimed() -> bool:
        raw = client.hget(f"tether:{{{team}}}:members", "alice")
        pid = json.loads(raw).get("pid") if isinstance(raw, bytes) else None
        if isinstance(pid, int):
            found.append(pid)
        return bool(found)

    try:
        wait_for(claimed, "alice's claim")
    finally:
        client.close()
    return found[0]
