"""`tether team send` imports the mailbox and roster it sends through, not the task board's
stack (its graph, outbox and events): measured before, `-X importtime` listed
`tether.store.task_graph` and `tether.store.task_outbox` in every send, through the mailbox
store's import of where the stores are."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tether.store.mailbox import Member, TeamRecord, open_team_store

from .mates import new_team

BOARD_ONLY = ("tether.store.task_graph", "tether.store.task_outbox", "tether.store.task_store")


def test_a_send_imports_no_task_board(repo: Path) -> None:
    team = new_team()
    store = open_team_store(None, project=repo, team=team)
    try:
        store.create_team(TeamRecord(name=team))
        store.put_member(Member(name="team-lead", state="idle"))
        store.put_member(Member(name="alice"))
    finally:
        store.close()
    sent = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tether", "team", "send", team, "alice", "hi"],
        cwd=repo,
        env=os.environ,
        capture_output=True,
        text=True,
        check=True,
    )
    assert sent.stdout.startswith("sent "), sent.stdout
    imported = {line.split("|")[2].strip() for line in sent.stderr.splitlines() if "|" in line}
    assert "tether.store.sqlite_mailbox" in imported
    assert [m for m in BOARD_ONLY if m in imported] == []
