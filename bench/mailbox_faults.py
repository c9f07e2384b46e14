"""Issue 13's two delivery figures, for `mailbox_bench.py`, on a store (SQLite or Redis):

- 100 messages sent to a member no process reads (a stopped teammate), then a consumer
  process started: how many it got, each how many times, and in what time;
- a consumer process that received 10 messages and acknowledged none, killed with SIGKILL:
  how many its successor process got (each once, as a redelivery), and how long after the
  kill (the successor takes back what was held longer than `RECLAIM_AFTER_S`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from tether.store.mailbox import Message, open_mailbox_store

STOPPED_MESSAGES = 100
HELD_MESSAGES = 10
RECLAIM_AFTER_S = 1.0


def _client(where: str, team: str, *args: str) -> subprocess.Popen[str]:
    project = str(Path(where).parent)
    return subprocess.Popen(
        [sys.executable, "-m", "tether.testing.mailbox_clients", args[0], where, team,
         "--project", project, *args[1:]],
        stdout=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip


def to_a_stopped_member(where: str) -> dict[str, Any]:
    team = f"bench-{uuid.uuid4().hex[:8]}"
    store = open_mailbox_store(where, project=Path(where).parent, team=team)
    try:
        for n in range(STOPPED_MESSAGES):
            store.send(Message(id=f"m{n}", sender="lead", recipient="mate", text=str(n)))
        started = time.perf_counter()
        drain = _client(where, team, "drain", "--member", "mate", "-n", str(STOPPED_MESSAGES))
        got = json.loads(drain.communicate(timeout=600)[0])
        took = time.perf_counter() - started
        left = store.unread("mate")
    finally:
        store.close()
    ids: list[str] = got["ids"]
    return {
        "sent": STOPPED_MESSAGES,
        "delivered": len(set(ids)),
        "more_than_once": len(ids) - len(set(ids)),
        "unread_after": left,
        "seconds": took,
    }


def consumer_killed_holding(where: str) -> dict[str, Any]:
    team = f"bench-{uuid.uuid4().hex[:8]}"
    store = open_mailbox_store(where, project=Path(where).parent, team=team)
    try:
        for n in range(HELD_MESSAGES):
            store.send(Message(id=f"m{n}", sender="lead", recipient="mate"))
        holder = _client(
            where, team, "hold", "--member", "mate", "--consumer", "c1", "-n", str(HELD_MESSAGES)
        )
        assert holder.stdout is not None
        held = json.loads(holder.stdout.readline())["held"]
        os.killpg(holder.pid, signal.SIGKILL)
        holder.communicate()
        killed = time.perf_counter()
        successor = _client(
            where, team, "drain", "--member", "mate", "--consumer", "c2",
            "-n", str(HELD_MESSAGES), "--reclaim-after", f"{RECLAIM_AFTER_S:g}",
        )  # fmt: skip
        got = json.loads(successor.communicate(timeout=600)[0])
        took = time.perf_counter() - killed
        left = store.unread("mate")
    finally:
        store.close()
    return {
        "held": len(held),
        "redelivered": len(set(got["ids"]) & set(held)),
        "more_than_once": len(got["ids"]) - len(set(got["ids"])),
        "attempts": sorted(set(got["attempts"])),
        "unread_after": left,
        "seconds": took,
    }


def measure(where: str) -> dict[str, Any]:
    return {"stopped": to_a_stopped_member(where), "killed": consumer_killed_holding(where)}


def report(name: str, row: dict[str, Any]) -> None:
    s, k = row["stopped"], row["killed"]
    print(
        f"  {name:<14} {s['sent']} sent to a stopped member: {s['delivered']} delivered, "
        f"{s['more_than_once']} more than once, {s['unread_after']} left, "
        f"{s['seconds']:.2f} s from the consumer's start"
    )
    print(
        f"  {'':<14} SIGKILLed holding {k['held']} unacknowledged: {k['redelivered']} "
        f"redelivered to its successor (attempt {'/'.join(map(str, k['attempts']))}), "
        f"{k['more_than_once']} more than once, {k['unread_after']} left, "
        f"{k['seconds']:.2f} s after the kill (reclaim after {RECLAIM_AFTER_S:g} s)"
    )
