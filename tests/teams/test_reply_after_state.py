"""A teammate's reply is stored with its new state, in one transaction: a reader that sees the
reply in the lead's mailbox never reads the teammate as still `responding` (measured before:
the reply was stored, then the state written after it; a reader watching the mailbox saw the
reply with the state `responding`), on either store."""

from __future__ import annotations

import time
from pathlib import Path

from tether.store.mailbox import Message
from tether.testing import FakeModelServer, text
from tether.testing.teammates import mate_answers, polite

from .mates import lead_store, new_team, wait_state
from .workers import tether

ROUNDS = 4
WAIT_S = 60.0


def test_no_reader_sees_a_reply_before_its_senders_state(
    repo: Path, model_env: FakeModelServer, store: list[str]
) -> None:
    model_env.responder = mate_answers(polite, after_tools=lambda m, r: text(f"{m} done"))
    team = new_team()
    tether(repo, "team", "up", team, "--member", "alice", *store)
    lead = lead_store(repo, team, store[1] if store else None)
    seen: list[str] = []
    try:
        for n in range(ROUNDS):
            wait_state(repo, team, "alice", "idle", *store)
            asked = lead.send(
                Message(sender="team-lead", recipient="alice", kind="request", text=f"q{n}")
            )
            deadline = time.monotonic() + WAIT_S
            replied = False
            while not replied:  # read as soon as the reply is there
                assert time.monotonic() < deadline, f"no reply to {asked.id}"
                got = lead.receive("team-lead", "test")
                replied = any(d.message.reply_to == asked.id for d in got)
                if replied:
                    seen.append(next(m for m in lead.members() if m.name == "alice").state)
                lead.ack("team-lead", [d.receipt for d in got])
    finally:
        lead.close()
        tether(repo, "team", "down", team, "--wait", "5", *store)
    assert "responding" not in seen, seen
