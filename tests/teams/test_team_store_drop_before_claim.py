"""The store drops before a teammate's process has claimed its member (it opens its store,
reads its roster, claims): those calls wait out the outage within `--store-patience` as the
later ones do, and the teammate goes on to run its loop and answer. Failed before: it exited
2 at once ("cannot reach the mailbox store ..."), though `up` would have waited for it."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path

import pytest

from tether.store.mailbox import Member, TeamRecord, open_team_store
from tether.testing import FakeModelServer
from tether.testing.redis_server import RedisServer, RedisUnavailable
from tether.testing.teammates import mate_answers, polite

from .mates import lead_reads_until, lead_store, new_team, wait_state
from .workers import WAIT_S, tether, wait_for


def test_a_teammate_waits_out_its_store_dropping_before_its_claim(
    repo: Path, model_env: FakeModelServer
) -> None:
    try:
        server = RedisServer.start(persist=True)
    except RedisUnavailable as e:
        pytest.skip(str(e))
    model_env.responder = mate_answers(polite)
    team = new_team()
    store = ["--store", server.url]
    records = open_team_store(server.url, project=repo, team=team)
    try:
        records.create_team(TeamRecord(name=team))
        for name in ("team-lead", "alice"):
            records.put_member(Member(name=name))
    finally:
        records.close()
    server.kill()  # gone before the teammate's first store call
    log = repo / "alice.out"
    with log.open("wb") as out:
        run = subprocess.Popen(
            [sys.executable, "-m", "tether", "team", "run", team, "alice", *store,
             "--store-patience", "60"],
            cwd=repo, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    lead = None
    try:
        waits = "trying again until it answers"
        wait_for(lambda: waits in log.read_text() or run.poll() is not None, "alice to wait")
        assert waits in log.read_text(), log.read_text()[-400:]
        server = RedisServer.start(port=server.port, workdir=server.workdir, persist=True)
        alice = wait_state(repo, team, "alice", "idle", *store)
        assert (alice["running"], alice["pid"]) == (True, run.pid)
        lead = lead_store(repo, team, server.url)
        tether(repo, "team", "send", team, "alice", "one", *store)
        got = lead_reads_until(lead, "alice got: one")
        assert [m.text for m in got if m.kind == "message"] == ["alice got: one"]
        assert "answers again" in log.read_text()
    finally:
        if lead is not None:
            lead.close()
        with contextlib.suppress(Exception):
            tether(repo, "team", "down", team, *store)
        if run.poll() is None:
            run.kill()
        run.wait(timeout=WAIT_S)
        server.stop()
