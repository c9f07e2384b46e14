"""A hostile run on one board: two `tether worker` processes and a teammate (`alice`, asked
again and again to take a task with TaskNext and complete it) share a team's board, and one
of them is SIGKILLed at random moments (mid-claim, mid-tool, mid-reply; alice, half the time,
once she holds a claim), then started again. Then workers finish the board, and the board,
the event log and the ledger must agree:

- every task completed, with one `completed` event each;
- per task, `claimed` events - `released` events = its attempts;
- per task, the ledger's model calls = the board's cost.

    .venv/bin/python bench/team_hostile.py [--store URL] [--seed N] [--seconds S] [--tasks N]

Without `--store`: the project's SQLite file. Prints what disagrees (nothing, when all agree)
and exits 1 if anything does.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from fake_env import fake_env
from tether.testing import FakeModelServer, RecordedRequest, Turn, reply, text, tool_use
from tether.testing.teammates import Letter, mate_answers, polite
from tether.testing.workers import task_of

USAGE = {"input_tokens": 1000, "output_tokens": 50}
TEAM = "hostile"
LEASE = ("--lease", "2")
_CLAIMED = re.compile(r"Claimed task #(\d+)")


class Run:
    def __init__(self, root: Path, seed: int, store: list[str]) -> None:
        self.rng = random.Random(seed)
        self.repo, self.home, self.root = root / "repo", root / "home", root
        self.store = store
        self.env: dict[str, str] = {}
        self.mates = mate_answers(self.mate_answer, after_tools=self.mate_after)

    def tether(self, *argv: str, check: bool = True) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "tether", *argv],
            cwd=self.repo,
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        )
        if check and done.returncode != 0:
            raise SystemExit(f"tether {' '.join(argv)}: exit {done.returncode}\n{done.stderr}")
        return done.stdout

    def pause(self, most_s: float) -> None:
        time.sleep(self.rng.random() * most_s)

    def respond(self, request: RecordedRequest) -> Turn:
        task_id = task_of(request)
        if task_id is None:
            return self.mates(request)
        self.pause(0.4)
        if not request.tool_results():
            return reply(tool_use("Bash", command="sleep 1"), usage=USAGE)
        return reply(text(f"done task {task_id}"), usage=USAGE)

    def mate_answer(self, mate: str, letters: list[Letter], request: RecordedRequest) -> Turn:
        self.pause(0.4)
        if letters and letters[0].body.startswith("take one"):
            return reply(tool_use("TaskNext"), usage=USAGE)
        return polite(mate, letters, request)

    def mate_after(self, mate: str, request: RecordedRequest) -> Turn:
        self.pause(1.5)
        result = request.tool_results()[0]
        found = _CLAIMED.match(result)
        if found:
            done = tool_use("TaskUpdate", taskId=found.group(1), status="completed", result="ok")
            return reply(done, usage=USAGE)
        return reply(text(f"{mate}: {result[:40]}"), usage=USAGE)

    def worker(self, i: int) -> subprocess.Popen[bytes]:
        log = (self.root / f"worker{i}.log").open("ab")
        return subprocess.Popen(
            [sys.executable, "-m", "tether", "worker", "--team", TEAM, *LEASE, *self.store],
            cwd=self.repo,
            env=self.env,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )

    def alice_pid(self) -> int | None:
        status = json.loads(self.tether("team", "status", TEAM, "--json", *self.store))
        return next((m.get("pid") for m in status["members"] if m["name"] == "alice"), None)

    def board(self) -> list[dict[str, Any]]:
        out = self.tether("board", "--json", "--team", TEAM, *self.store)
        return json.loads(out)["tasks"]

    def kill_alice(self) -> None:
        until = time.monotonic() + 6  # once she holds a claim, if she takes one meanwhile
        while time.monotonic() < until:
            if any(t["status"] == "in_progress" and t["owner"] == "alice" for t in self.board()):
                break
        pid = self.alice_pid()
        if pid:
            try:
                os.killpg(os.getpgid(pid), signal.SIGKILL)
            except ProcessLookupError:
                return
        self.tether("team", "up", TEAM, "--member", "alice", *LEASE, *self.store, check=False)

    def chaos(self, tasks: int, seconds: float) -> list[str]:
        for n in range(tasks):
            self.tether("tasks", "add", f"part {n + 1}", "--team", TEAM, *self.store)
        self.tether("team", "up", TEAM, "--member", "alice", *LEASE, *self.store)
        workers = {0: self.worker(0), 1: self.worker(1)}
        kills: list[str] = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.tether("team", "send", TEAM, "alice", "take one", *self.store, check=False)
            self.pause(1.5)
            victim = self.rng.choice(["w0", "w1", "alice", "alice"])
            kills.append(victim)
            if victim == "alice":
                self.kill_alice()
                continue
            i = int(victim[1])
            os.killpg(workers[i].pid, signal.SIGKILL)
            workers[i].wait()
            workers[i] = self.worker(i)
        for proc in workers.values():
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait()
        self.tether("team", "down", TEAM, *self.store, check=False)
        self.tether("worker", "--team", TEAM, *LEASE, "--until-idle", "--count", "2", *self.store)
        return kills

    def disagreements(self) -> tuple[list[str], Counter[tuple[str, str]]]:
        tasks = {t["id"]: t for t in self.board()}
        changes: list[dict[str, Any]] = []
        for path in (self.home / "events").glob("*.jsonl"):
            for line in path.read_text().splitlines():
                payload = json.loads(line).get("payload")
                if (
                    isinstance(payload, dict)
                    and payload.get("team") == TEAM
                    and "change" in payload
                ):
                    changes.append(payload)  # pyright: ignore[reportUnknownArgumentType]
        seen = Counter((str(c["by"]).split("-")[0], str(c["change"])) for c in changes)
        with sqlite3.connect(self.home / "ledger.db") as db:
            rows = db.execute(
                "SELECT task_id, SUM(cost) FROM model_calls WHERE team = ? GROUP BY task_id",
                (TEAM,),
            )
            ledger: dict[str, float] = {str(k): float(v) for k, v in rows}
        problems: list[str] = []
        for task_id, task in tasks.items():
            mine = [c["change"] for c in changes if c.get("task_id") == task_id]
            if task["status"] != "completed" or mine.count("completed") != 1:
                problems.append(f"#{task_id} {task['status']}, events {mine}")
            if mine.count("claimed") - mine.count("released") != task["attempts"]:
                problems.append(f"#{task_id}: attempts {task['attempts']}, events {mine}")
            if abs(ledger.get(task_id, 0.0) - task["cost_usd"]) > 1e-9:
                problems.append(
                    f"#{task_id}: ledger {ledger.get(task_id, 0.0):.6f}, board "
                    f"{task['cost_usd']:.6f}"
                )
        return problems, seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", help="a store URL (default: the project's SQLite file)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--tasks", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as fake:
        run = Run(Path(tmp), args.seed, ["--store", args.store] if args.store else [])
        run.repo.mkdir()
        for git in (["init", "-q", "-b", "main"], ["commit", "-q", "--allow-empty", "-m", "0"]):
            subprocess.run(
                ["git", "-c", "user.name=b", "-c", "user.email=b@b", *git], cwd=run.repo, check=True
            )
        run.env = {
            **os.environ,
            **fake_env(fake, run.home),
            "TETHER_TRUST_WORKSPACE": "1",
        }
        fake.responder = run.respond
        kills = run.chaos(args.tasks, args.seconds)
        problems, seen = run.disagreements()
    print(f"kills: {dict(Counter(kills))}")
    print("task events:", ", ".join(f"{who} {what} {n}" for (who, what), n in sorted(seen.items())))
    print("disagreements:", *(problems or ["none"]), sep="\n  ")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
