"""Mailboxes across real processes: concurrent senders lose and duplicate nothing, messages
wait for a member that is not running, and a consumer killed holding messages loses none."""

from __future__ import annotations

import json
import os
import signal
from collections import Counter
from pathlib import Path

from tether.store.mailbox import Message, TeamStore

from .mailbox_stores import OpenTeamStore, mailbox_client

SENDERS = 4
PER_SENDER = 400


def test_four_senders_lose_and_duplicate_nothing(
    mailboxes: TeamStore, mailbox_url: str, team: str, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    total = SENDERS * PER_SENDER
    drain = mailbox_client(
        mailbox_url, team, project, "drain", "--member", "lead", "--count", str(total)
    )
    senders = [
        mailbox_client(
            mailbox_url, team, project, "send", "--to", "lead", "--sender", f"s{n}",
            "--count", str(PER_SENDER),
        )
        for n in range(SENDERS)
    ]  # fmt: skip
    for proc in senders:
        out, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err
        assert json.loads(out) == {"sent": PER_SENDER}
    out, err = drain.communicate(timeout=240)
    assert drain.returncode == 0, err
    ids = json.loads(out)["ids"]
    assert Counter(ids) == Counter(f"s{s}-{n}" for s in range(SENDERS) for n in range(PER_SENDER))
    # Each sender's messages in the order it sent them.
    for s in range(SENDERS):
        assert [i for i in ids if i.startswith(f"s{s}-")] == [
            f"s{s}-{n}" for n in range(PER_SENDER)
        ]
    assert mailboxes.unread("lead") == 0


def test_messages_to_a_member_not_running_wait_for_it(
    mailboxes: TeamStore, mailbox_url: str, team: str, tmp_path: Path
) -> None:
    for n in range(100):
        mailboxes.send(Message(id=f"m{n}", sender="lead", recipient="alice", text=str(n)))
    assert mailboxes.unread("alice") == 100
    drain = mailbox_client(
        mailbox_url, team, tmp_path / "project", "drain", "--member", "alice", "--count", "100"
    )
    out, err = drain.communicate(timeout=120)
    assert drain.returncode == 0, err
    assert json.loads(out) == {"ids": [f"m{n}" for n in range(100)], "attempts": [1] * 100}
    assert mailboxes.unread("alice") == 0


def test_a_killed_consumers_messages_all_go_to_its_successor(
    open_mailboxes: OpenTeamStore, mailbox_url: str, team: str, tmp_path: Path
) -> None:
    store = open_mailboxes()
    for n in range(10):
        store.send(Message(id=f"m{n}", sender="lead", recipient="alice"))
    project = tmp_path / "project"
    holder = mailbox_client(
        mailbox_url, team, project, "hold", "--member", "alice", "--consumer", "a1", "--count", "10"
    )
    assert holder.stdout is not None
    assert json.loads(holder.stdout.readline()) == {"held": [f"m{n}" for n in range(10)]}
    os.killpg(holder.pid, signal.SIGKILL)
    holder.communicate()
    assert store.receive("alice", "a2") == []  # held, not yet past its reclaim time
    successor = mailbox_client(
        mailbox_url, team, project, "drain", "--member", "alice", "--consumer", "a2",
        "--count", "10", "--reclaim-after", "0.2",
    )  # fmt: skip
    out, err = successor.communicate(timeout=120)
    assert successor.returncode == 0, err
    assert json.loads(out) == {"ids": [f"m{n}" for n in range(10)], "attempts": [2] * 10}
    assert store.unread("alice") == 0
