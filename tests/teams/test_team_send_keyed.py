"""`tether team send ... --id KEY`: the same command run again (after a cut: a script retried,
an answer lost) sends its message once, on SQLite and on a real Redis server; without a key
each run is a message of its own (before, every run made a new id, so a rerun doubled it)."""

from __future__ import annotations

import os
from pathlib import Path

from tether.cli.team_post import keyed_id
from tether.store.mailbox import Member, TeamRecord, open_team_store
from tether.testing.cli_runner import run_cli_process

from .mates import new_team
from .workers import WAIT_S, tether


def test_a_send_run_again_under_its_key_is_one_message(repo: Path, store: list[str]) -> None:
    team = new_team()
    mailboxes = open_team_store(store[1] if store else None, project=repo, team=team)
    try:
        mailboxes.create_team(TeamRecord(name=team))
        mailboxes.put_member(Member(name="team-lead", state="idle"))
        mailboxes.put_member(Member(name="alice"))
        said = [
            tether(repo, "team", "send", team, "alice", text, *key, *store)
            for text, key in [
                ("run the tests", ["--id", "nightly-1"]),
                ("run the tests", ["--id", "nightly-1"]),  # the rerun after a cut
                ("run the tests", ["--id", "nightly-2"]),
                ("go on", []),
                ("go on", []),  # said twice on purpose: two messages
            ]
        ]
        first, second = keyed_id("nightly-1", "alice"), keyed_id("nightly-2", "alice")
        assert said[:3] == [
            f"sent {first} to alice\n",
            f"{first} to alice was sent already (--id nightly-1): not sent again\n",
            f"sent {second} to alice\n",
        ]
        got = [d.message for d in mailboxes.receive("alice", "c", max_count=10)]
        assert [(m.id, m.sender, m.text) for m in got[:2]] == [
            (first, "team-lead", "run the tests"),
            (second, "team-lead", "run the tests"),
        ]
        assert [m.text for m in got[2:]] == ["go on", "go on"]
        assert [f"sent {m.id} to alice\n" for m in got[2:]] == said[3:]
    finally:
        mailboxes.close()


def test_a_key_with_a_request_is_refused_saying_why(repo: Path) -> None:
    team = new_team()
    done = run_cli_process(
        ["team", "send", team, "alice", "q?", "--wait", "--id", "k"],
        env=dict(os.environ),
        cwd=repo,
        timeout_s=WAIT_S,
    )
    assert (done.exit_code, done.stdout, done.stderr) == (
        2,
        "",
        "tether: error: --id names a plain message: not with --wait, --reply-to or a plan\n",
    )
