"""A lead and two teammates against one agent, on the same scripted work: four parts, each
explored (a Read) then written (a Write), the fake model answering each request after 300 ms.

- One agent: `tether -p` does the four parts in turn (8 tool calls, 9 requests).
- A team: `tether team up` starts alice and bob (each its own process and session); the lead
  (this script, through `tether team send` and its mailbox, as a person at the CLI would)
  gives each two parts; each does its two, then tells the lead with SendMessage. Timed from
  `team up` (the teammates' start-up included) to the lead holding both reports.
- The same team with its teammates started as new processes (`TETHER_SPAWN=1`, as a lead
  session's Task tool starts them) instead of forked from `team up`.

Reported side by side: wall time, model requests, the files written, and the ratio; for a
team, where its time went: `team up`, the two `team send`s (a CLI process each), and the work
from the second send to the lead holding both reports.

    .venv/bin/python bench/team_bench.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from fake_env import fake_env
from tether.store.mailbox import Member, TeamRecord, open_team_store
from tether.testing import FakeModelServer, RecordedRequest, Turn, text, tool_use
from tether.testing.teammates import member_of

LATENCY_S = 0.3
NAMES = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta")
SIZES = (4, 8)
"""The work's sizes, in parts: the first figures the brief's task, the second how it scales."""
TEAM = "bench"


def _tether(project: Path, env: dict[str, str], *argv: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "tether", *argv],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return done.stdout


def _steps_done(request: RecordedRequest) -> int:
    return sum(
        1
        for m in request.messages()
        if m.get("role") == "user" and isinstance(m.get("content"), list)
        for block in m["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    )


def _parts(request: RecordedRequest) -> list[str]:
    for m in request.messages():
        if m.get("role") != "user":
            continue
        content = m.get("content")
        blocks = [content] if isinstance(content, str) else content or []
        for block in blocks:
            said = block if isinstance(block, str) else block.get("text", "")
            if isinstance(said, str) and "parts: " in said:
                line = said.split("parts: ", 1)[1].splitlines()[0]
                return [p.strip() for p in line.split(",") if p.strip()]
    return []


def responder(project: Path) -> Any:
    """Explore then write each part in turn; a teammate then reports to the lead."""

    def respond(request: RecordedRequest) -> Turn:
        mate = member_of(request)
        parts, step = _parts(request), _steps_done(request)
        if step < 2 * len(parts):
            part = parts[step // 2]
            if step % 2 == 0:
                return tool_use("Read", file_path=str(project / "src" / f"{part}.py"))
            summary = project / "notes" / f"{part}.md"
            return tool_use("Write", file_path=str(summary), content=f"# {part}\nexplored\n")
        if mate is not None and step == 2 * len(parts):
            return tool_use("SendMessage", to="team-lead", message=f"done: {', '.join(parts)}")
        return text(f"done: {', '.join(parts)}")

    return respond


def _project(root: Path, parts: tuple[str, ...]) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "notes").mkdir()
    for part in parts:
        (root / "src" / f"{part}.py").write_text(f"def {part}() -> int:\n    return 1\n")
    (root / ".tether").mkdir()
    (root / ".tether" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Read", "Write"]}})
    )
    return root


def _written(project: Path, parts: tuple[str, ...]) -> int:
    return sum((project / "notes" / f"{p}.md").is_file() for p in parts)


def one_agent(tmp: Path, parts: tuple[str, ...]) -> dict[str, float]:
    project = _project(tmp / f"one-{len(parts)}", parts)
    with FakeModelServer() as fake:
        fake.latency_s = LATENCY_S
        fake.responder = responder(project)
        env = {**os.environ, **fake_env(fake, tmp / "home-one"), "TETHER_TRUST_WORKSPACE": "1"}
        started = time.perf_counter()
        _tether(project, env, "-p", f"parts: {', '.join(parts)}")
        wall = time.perf_counter() - started
        requests = len(fake.requests)
    return {"wall_s": wall, "requests": requests, "written": _written(project, parts)}


def team(tmp: Path, parts: tuple[str, ...], *, spawn: bool = False) -> dict[str, float]:
    project = _project(tmp / f"team-{len(parts)}{'-spawned' if spawn else ''}", parts)
    with FakeModelServer() as fake:
        fake.latency_s = LATENCY_S
        fake.responder = responder(project)
        env = {
            **os.environ,
            **fake_env(fake, tmp / "home-team"),
            "TETHER_TRUST_WORKSPACE": "1",
            **({"TETHER_SPAWN": "1"} if spawn else {}),
        }
        lead = open_team_store(None, project=project, team=TEAM)
        try:
            started = time.perf_counter()
            _tether(project, env, "team", "up", TEAM, "--member", "alice", "--member", "bob")
            up_s = time.perf_counter() - started
            half = len(parts) // 2
            _tether(
                project, env, "team", "send", TEAM, "alice", f"parts: {', '.join(parts[:half])}"
            )
            _tether(project, env, "team", "send", TEAM, "bob", f"parts: {', '.join(parts[half:])}")
            sent_s = time.perf_counter() - started
            reports: set[str] = set()
            while len(reports) < 2:
                assert time.perf_counter() - started < 600, "no reports from the teammates"
                batch = lead.receive("team-lead", "bench-lead", block_s=1.0)
                lead.ack("team-lead", [d.receipt for d in batch])
                reports |= {d.message.sender for d in batch if d.message.text.startswith("done")}
            wall = time.perf_counter() - started
            requests = len(fake.requests)
        finally:
            lead.close()
            _tether(project, env, "team", "down", TEAM, "--wait", "30")
    return {
        "wall_s": wall,
        "up_s": up_s,
        "send_s": sent_s - up_s,
        "work_s": wall - sent_s,
        "requests": requests,
        "written": _written(project, parts),
    }


SENDS = 5


def send_cost(tmp: Path) -> dict[str, float]:
    """`tether team send`'s start-up, side by side with the CLI's floor (`tether --version`):
    the median of `SENDS` runs each, to a team whose teammate is recorded and not running;
    and the share of a send's time its imports take (`-X importtime`, top level)."""
    project = _project(tmp / "send", ())
    store = open_team_store(None, project=project, team=TEAM)
    try:
        store.create_team(TeamRecord(name=TEAM))
        store.put_member(Member(name="team-lead", state="idle"))
        store.put_member(Member(name="alice"))
    finally:
        store.close()
    env = {**os.environ, "TETHER_TRUST_WORKSPACE": "1"}

    def median_s(*argv: str) -> float:
        took: list[float] = []
        for _ in range(SENDS):
            started = time.perf_counter()
            _tether(project, env, *argv)
            took.append(time.perf_counter() - started)
        return sorted(took)[len(took) // 2]

    send = median_s("team", "send", TEAM, "alice", "hello")
    floor = median_s("--version")
    traced = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tether", "team", "send", TEAM, "alice", "hi"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    rows = [line.split("|") for line in traced.stderr.splitlines() if line.count("|") == 2]
    # Top-level imports only (their names indented by one space): each counts its children.
    imports_us = sum(int(r[1]) for r in rows if r[1].strip().isdigit() and r[2][1:2] != " ")
    pydantic = "pydantic" in traced.stderr
    return {"send_s": send, "floor_s": floor, "imports_s": imports_us / 1e6, "pydantic": pydantic}


def main() -> dict[int, dict[str, dict[str, float]]]:
    results: dict[int, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="tether-team-bench-") as tmp:
        results[0] = {"send": send_cost(Path(tmp))}
        for size in SIZES:
            parts = NAMES[:size]
            results[size] = {
                "one": one_agent(Path(tmp), parts),
                "team": team(Path(tmp), parts),
                "spawned": team(Path(tmp), parts, spawn=True),
            }
    return results


def report(results: dict[int, dict[str, dict[str, float]]]) -> None:
    print(
        "team: parts each explored (Read) then written (Write); fake model "
        f"{LATENCY_S * 1000:.0f} ms a request; wall time includes process start-up; "
        f"load {os.getloadavg()[0]:.1f}"
    )
    cost = results[0]["send"]
    print(
        f"  team send {cost['send_s']:.3f}s, tether --version {cost['floor_s']:.3f}s: "
        f"{cost['send_s'] / cost['floor_s']:.1f}x the CLI's floor; imports "
        f"{cost['imports_s']:.3f}s of it (pydantic imported: {bool(cost['pydantic'])})"
    )
    print(f"  {'parts':<6} {'who':<22} {'wall':>8} {'requests':>9} {'written':>8}")
    for size, row in results.items():
        if not size:
            continue
        one, mates, spawned = row["one"], row["team"], row["spawned"]
        print(
            f"  {size:<6} {'one agent (tether -p)':<22} {one['wall_s']:>7.2f}s"
            f" {one['requests']:>9.0f} {one['written']:>8.0f}"
        )
        for who, t in (("lead + alice + bob", mates), ("  teammates spawned", spawned)):
            print(
                f"  {size:<6} {who:<22} {t['wall_s']:>7.2f}s"
                f" {t['requests']:>9.0f} {t['written']:>8.0f}"
                f"   (team up {t['up_s']:.2f}s, 2 sends {t['send_s']:.2f}s,"
                f" work {t['work_s']:.2f}s)"
            )
        print(
            f"  {size:<6} one agent / team: wall {one['wall_s'] / mates['wall_s']:.2f}x"
            f" (teammates spawned: {one['wall_s'] / spawned['wall_s']:.2f}x)"
        )


if __name__ == "__main__":
    report(main())
