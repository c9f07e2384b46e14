"""`tether team send` imports the mailbox it sends through, not the task board's stack (its
graph, outbox and events): measured before, `-X importtime` listed `tether.store.task_graph`
and `tether.store.task_outbox` in every send, through the mailbox store's import of where the
stores are. Nor the roster's and messages' models: a plain message goes through the
mailbox's rows or keys (`mailbox_post`), and is read back as the stores' `send` stores it.
Measured before: pydantic was imported by every send (some 50 ms)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tether.store.mailbox import Member, TeamRecord, open_team_store

from .mates import new_team

BOARD_ONLY = ("tether.store.task_graph", "tether.store.task_outbox", "tether.store.task_store")


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_a_send_imports_no_task_board_nor_pydantic(
    repo: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    url = None if backend == "sqlite" else str(request.getfixturevalue("redis_url"))
    team = new_team()
    store = open_team_store(url, project=repo, team=team)
    try:
        store.create_team(TeamRecord(name=team))
        store.put_member(Member(name="team-lead", state="idle"))
        store.put_member(Member(name="alice"))
        flags = [] if url is None else ["--store", url]
        sent = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "tether", "team", "send", team, "alice",
             "hi \N{SNOWMAN}", *flags],
            cwd=repo, env=os.environ, capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert sent.stdout.startswith("sent "), sent.stdout
        imported = {line.split("|")[2].strip() for line in sent.stderr.splitlines() if "|" in line}
        assert "tether.store.mailbox_post" in imported
        assert [m for m in (*BOARD_ONLY, "pydantic", "tether.store.mailbox") if m in imported] == []
        got = store.receive("alice", "test", block_s=1.0)
        assert [(d.message.id, d.message.sender, d.message.kind, d.message.text) for d in got] == [
            (sent.stdout.split()[1], "team-lead", "message", "hi \N{SNOWMAN}")
        ]
    finally:
        store.close()


def test_a_send_to_no_such_member_or_team_says_so(repo: Path) -> None:
    team = new_team()
    store = open_team_store(None, project=repo, team=team)
    try:
        store.create_team(TeamRecord(name=team))
        store.put_member(Member(name="team-lead", state="idle"))
    finally:
        store.close()
    for argv, said in (
        ([team, "bob", "hi"], f"no member named 'bob' in team {team} (members: team-lead)"),
        (["other", "bob", "hi"], "no team named 'other'"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "tether", "team", "send", *argv],
            cwd=repo, env=os.environ, capture_output=True, text=True,
        )  # fmt: skip
        assert done.returncode == 2, done
        assert said in done.stderr, done.stderr
