"""A team's SQLite file replaced (or moved away) under a running teammate: waiting cannot
mend it, so the teammate says so and stops, as a worker does, instead of retrying for minutes
a file nobody sends to any more (and needing SIGTERM to go)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tether.testing import FakeModelServer
from tether.testing.teammates import mate_answers, polite

from .mates import lead_reads_until, lead_store, member, new_team, status
from .workers import tether, wait_for


def test_a_teammate_whose_store_file_is_replaced_stops_saying_why(
    repo: Path, model_env: FakeModelServer
) -> None:
    model_env.responder = mate_answers(polite)
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice")
    lead = lead_store(repo, team)
    try:
        tether(repo, "team", "send", team, "alice", "one")
        lead_reads_until(lead, "alice got: one")
    finally:
        lead.close()
    db = repo / ".tether" / "tasks.db"
    shutil.copyfile(db, db.with_name("copy.db"))
    os.replace(db.with_name("copy.db"), db)  # the same content, another file
    log = repo / ".tether" / "teams" / team / "alice.log"
    wait_for(lambda: not member(status(repo, team), "alice")["running"], "alice to stop")
    said = log.read_text()
    assert (
        f"the mailbox store {db} was replaced by another file since this process opened it" in said
    )
    assert "stopping once its turn is done" in said
    assert "trying again" not in said
    down = tether(repo, "team", "down", team)
    assert "SIGTERM" not in down
