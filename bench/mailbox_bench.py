"""Mailboxes side by side: SQLite, Redis Streams, and the reference design's JSONL inboxes.

The baseline is written here only: one JSONL file per member, a send appends a line, a reader
polls its file every 0.5 s and reads it, then truncates it (read-then-truncate). Figures, in
one run:

- round trip: the lead sends a request to a member process, which receives it, replies and
  acknowledges; the lead's time from send to having the reply (acknowledged), p50 and p99;
- 4 sender processes x 400 messages (2 ms apart) to one mailbox while a consumer drains it:
  messages lost, and duplicated deliveries (the stores' consumer drops ids it has seen, so
  "after dedup" is what the model would get; the raw redeliveries are shown beside);
- CPU a consumer burns waiting 3 s on an empty mailbox;
- SQLite and Redis: 100 messages to a stopped member, all delivered once when a consumer
  starts; a consumer SIGKILLed holding 10 unacknowledged, all redelivered to its successor
  (`mailbox_faults.py`).

Redis is a real `redis-server` started here on 127.0.0.1; without one its row says why.

    .venv/bin/python bench/mailbox_bench.py  [BENCH_ROUND_TRIPS=200 BENCH_JSONL_ROUND_TRIPS=30]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from tether.store.mailbox import Message, open_mailbox_store
from tether.testing.redis_server import RedisServer, RedisUnavailable

sys.path.insert(0, str(Path(__file__).parent))
import mailbox_faults  # beside this file

ROUND_TRIPS = int(os.environ.get("BENCH_ROUND_TRIPS", "200"))
JSONL_ROUND_TRIPS = int(os.environ.get("BENCH_JSONL_ROUND_TRIPS", "30"))
SENDERS, PER_SENDER = 4, 400
IDLE_S = 3.0
POLL_S = 0.5
"""The baseline's polling period."""
PACE_S = float(os.environ.get("BENCH_SEND_PACE_S", "0.002"))
"""Each sender's pause between messages (every design alike): senders spread over several of
the baseline's polls, as teammates sending while the lead reads are."""


class JsonlInboxes:
    """The reference design's mailboxes: `<member>.jsonl`, appended to, read then truncated."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def send(self, to: str, message: dict[str, Any]) -> None:
        with open(self.folder / f"{to}.jsonl", "a") as f:
            f.write(json.dumps(message) + "\n")

    def read(self, member: str) -> tuple[list[dict[str, Any]], int]:
        """The messages in the file, and how many lines could not be read; then the file
        emptied, as the reference design does it (what is appended meanwhile goes too)."""
        path = self.folder / f"{member}.jsonl"
        if not path.exists():
            return [], 0
        messages: list[dict[str, Any]] = []
        broken = 0
        for line in path.read_text().strip().splitlines():
            try:
                messages.append(json.loads(line))
            except json.JSONDecodeError:
                broken += 1
        path.write_text("")
        return messages, broken

    def receive(self, member: str, timeout_s: float) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout_s
        while True:
            messages, _ = self.read(member)
            if messages or time.monotonic() >= deadline:
                return messages
            time.sleep(POLL_S)


# -- processes (this file run with a role)


def echo(kind: str, where: str, team: str, count: int) -> None:
    """Answer `count` requests to `echo`, each with a reply to `lead`."""
    if kind == "jsonl":
        inboxes = JsonlInboxes(Path(where))
        answered = 0
        while answered < count:
            for m in inboxes.receive("echo", 60):
                inboxes.send("lead", {"id": f"re-{m['id']}", "reply_to": m["id"]})
                answered += 1
        return
    store = open_mailbox_store(where, project=Path(where).parent, team=team)
    answered = 0
    while answered < count:
        got = store.receive("echo", "echo-1", block_s=60)
        for d in got:
            store.send(
                Message(sender="echo", recipient="lead", kind="reply", reply_to=d.message.id)
            )
        store.ack("echo", [d.receipt for d in got])
        answered += len(got)
    store.close()


def jsonl_send(folder: str, sender: str, count: int) -> None:
    inboxes = JsonlInboxes(Path(folder))
    for n in range(count):
        inboxes.send("lead", {"id": f"{sender}-{n}", "sender": sender})
        time.sleep(PACE_S)


def jsonl_drain(folder: str, stop_file: str) -> None:
    """Poll until told the senders are done, then read once more; print what came."""
    inboxes = JsonlInboxes(Path(folder))
    ids: list[str] = []
    broken = 0
    while True:
        done = Path(stop_file).exists()
        messages, bad = inboxes.read("lead")
        ids += [m["id"] for m in messages]
        broken += bad
        if done:
            break
        time.sleep(POLL_S)
    print(json.dumps({"ids": ids, "broken_lines": broken}))


# -- measurements


def _me(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, __file__, *args], stdout=subprocess.PIPE, text=True
    )  # fmt: skip


def round_trips(kind: str, where: str, n: int) -> list[float]:
    team = f"bench-{uuid.uuid4().hex[:8]}"
    responder = _me("echo", kind, where, team, str(n + 1))
    times: list[float] = []
    if kind == "jsonl":
        inboxes = JsonlInboxes(Path(where))
        for i in range(n + 1):  # the first waits for the responder to start: not counted
            started = time.perf_counter()
            inboxes.send("echo", {"id": f"q{i}"})
            while not inboxes.receive("lead", 60):
                pass
            times.append(time.perf_counter() - started)
    else:
        store = open_mailbox_store(where, project=Path(where).parent, team=team)
        for i in range(n + 1):  # the first waits for the responder to start: not counted
            started = time.perf_counter()
            store.send(Message(id=f"q{i}", sender="lead", recipient="echo", kind="request"))
            got = []
            while not got:
                got = store.receive("lead", "lead-1", block_s=60)
            store.ack("lead", [d.receipt for d in got])
            times.append(time.perf_counter() - started)
        store.close()
    responder.wait()
    return times[1:]


def concurrent_senders(kind: str, where: str) -> dict[str, int]:
    team = f"bench-{uuid.uuid4().hex[:8]}"
    total = SENDERS * PER_SENDER
    stop = Path(where) / "senders-done"
    if kind == "jsonl":
        drain = _me("jsonl-drain", where, str(stop))
        senders = [_me("jsonl-send", where, f"s{n}", str(PER_SENDER)) for n in range(SENDERS)]
    else:
        project = str(Path(where).parent)
        clients = [sys.executable, "-m", "tether.testing.mailbox_clients"]
        drain = subprocess.Popen(
            [*clients, "drain", where, team, "--project", project, "--member", "lead",
             "-n", str(total)],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        senders = [
            subprocess.Popen(
                [
                    *clients,
                    "send",
                    where,
                    team,
                    "--project",
                    project,
                    "--to",
                    "lead",
                    "--sender",
                    f"s{n}",
                    "-n",
                    str(PER_SENDER),
                ],
                stdout=subprocess.PIPE,
                text=True,
            )
            for n in range(SENDERS)
        ]
    for proc in senders:
        proc.communicate()
    if kind == "jsonl":
        stop.touch()
    out, _ = drain.communicate(timeout=600)
    result = json.loads(out)
    ids: list[str] = result["ids"]
    distinct = set(ids)
    expected = {f"s{s}-{n}" for s in range(SENDERS) for n in range(PER_SENDER)}
    return {
        "lost": len(expected - distinct),
        "redelivered": len(ids) - len(distinct),
        # The stores' consumer drops an id it has handled; the baseline has no ids to go by.
        "duplicated": len(ids) - len(distinct) if kind == "jsonl" else 0,
        "broken_lines": int(result.get("broken_lines", 0)),
        "total": total,
    }


def idle_cpu(kind: str, where: str) -> float:
    """CPU seconds per second spent waiting on an empty mailbox."""
    started = time.process_time()
    if kind == "jsonl":
        JsonlInboxes(Path(where)).receive("nobody", IDLE_S)
    else:
        store = open_mailbox_store(where, project=Path(where).parent, team="idle")
        started = time.process_time()
        store.receive("nobody", "nobody-1", block_s=IDLE_S)
        store.close()
    return (time.process_time() - started) / IDLE_S


def measure(kind: str, where: str) -> dict[str, Any]:
    n = JSONL_ROUND_TRIPS if kind == "jsonl" else ROUND_TRIPS
    times = sorted(round_trips(kind, where, n))
    return {
        "round_trips": n,
        "p50_ms": statistics.median(times) * 1000,
        "p99_ms": times[min(len(times) - 1, round(0.99 * (len(times) - 1)))] * 1000,
        **concurrent_senders(kind, where),
        "idle_cpu_pct": idle_cpu(kind, where) * 100,
        **({} if kind == "jsonl" else {"faults": mailbox_faults.measure(where)}),
    }


def main() -> dict[str, dict[str, Any] | str]:
    results: dict[str, dict[str, Any] | str] = {}
    with tempfile.TemporaryDirectory(prefix="tether-mailbox-bench-") as tmp:
        results["sqlite"] = measure("sqlite", str(Path(tmp) / "project" / "tasks.db"))
        try:
            server = RedisServer.start()
        except RedisUnavailable as e:
            results["redis"] = str(e)
        else:
            try:
                results["redis"] = measure("redis", server.url)
            finally:
                server.stop()
        results["jsonl"] = measure("jsonl", str(Path(tmp) / "inboxes"))
    return results


def report(results: dict[str, dict[str, Any] | str]) -> None:
    print(
        f"mailboxes: round trip (request to a member process, reply back, acknowledged); "
        f"{SENDERS} senders x {PER_SENDER} messages to one mailbox; CPU waiting {IDLE_S:.0f} s"
    )
    print(
        f"  {'store':<14} {'trips':>5} {'p50':>9} {'p99':>9} {'lost':>5} {'dup':>4} "
        f"{'redelivered':>11} {'idle CPU':>9}"
    )
    names = {"sqlite": "SQLite", "redis": "Redis Streams", "jsonl": "JSONL (0.5 s)"}
    for name, row in results.items():
        if isinstance(row, str):
            print(f"  {names[name]:<14} skipped: {row}")
            continue
        print(
            f"  {names[name]:<14} {row['round_trips']:>5} {row['p50_ms']:>7.1f}ms "
            f"{row['p99_ms']:>7.1f}ms {row['lost']:>5} {row['duplicated']:>4} "
            f"{row['redelivered']:>11} {row['idle_cpu_pct']:>8.2f}%"
        )
    base = results.get("jsonl")
    if isinstance(base, dict):
        for name in ("sqlite", "redis"):
            row = results.get(name)
            if isinstance(row, dict):
                p50, p99 = base["p50_ms"] / row["p50_ms"], base["p99_ms"] / row["p99_ms"]
                print(f"  JSONL / {names[name]} round trip: p50 {p50:.0f}x, p99 {p99:.0f}x")
    print("delivery at least once, each handled once:")
    for name in ("sqlite", "redis"):
        row = results.get(name)
        if isinstance(row, dict):
            mailbox_faults.report(names[name], row["faults"])


if __name__ == "__main__":
    if len(sys.argv) > 1:
        role, *rest = sys.argv[1:]
        if role == "echo":
            echo(rest[0], rest[1], rest[2], int(rest[3]))
        elif role == "jsonl-send":
            jsonl_send(rest[0], rest[1], int(rest[2]))
        elif role == "jsonl-drain":
            jsonl_drain(rest[0], rest[1])
    else:
        report(main())
