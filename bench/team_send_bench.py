"""`tether team send` over SQLite and over Redis, side by side in one run (issue 13: a send
over Redis measured 1.0-1.7 s against 0.38 s over SQLite on a loaded machine).

Each round sends one plain message through each store, alternately (so that the machine's
load falls on both alike), as a new process, as a user's shell runs it; wall time per send,
median and spread, and the ratio Redis/SQLite. Then `-X importtime` of one send over Redis:
what `import redis` costs of it (redis-py's package imports its asyncio client, its parsers
and its observability hooks whatever one uses), and the biggest of tether's own imports.

Redis is a real `redis-server` started here on 127.0.0.1; without one the bench says why.

    .venv/bin/python bench/team_send_bench.py  [BENCH_SENDS=10]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tether.store.mailbox import Member, TeamRecord, open_team_store
from tether.testing.redis_server import RedisServer, RedisUnavailable

SENDS = int(os.environ.get("BENCH_SENDS", "10"))
TEAM = "send-bench"


def _team(project: Path, url: str | None) -> None:
    store = open_team_store(url, project=project, team=TEAM)
    try:
        store.create_team(TeamRecord(name=TEAM))
        store.put_member(Member(name="team-lead", state="idle"))
        store.put_member(Member(name="alice"))
    finally:
        store.close()


def _send(project: Path, url: str | None, *flags: str) -> subprocess.CompletedProcess[str]:
    store = [] if url is None else ["--store", url]
    return subprocess.run(
        [sys.executable, *flags, "-m", "tether", "team", "send", TEAM, "alice", "hi", *store],
        cwd=project, capture_output=True, text=True, check=True,
    )  # fmt: skip


def _timed(project: Path, url: str | None) -> float:
    start = time.perf_counter()
    _send(project, url)
    return time.perf_counter() - start


def _imports(project: Path, url: str) -> dict[str, float]:
    """Cumulative import time (s) by module, of one send over Redis."""
    err = _send(project, url, "-X", "importtime").stderr
    cumulative: dict[str, float] = {}
    for line in err.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, total, name = (part.strip() for part in line.split("|"))
            if total.isdigit():
                cumulative[name] = int(total) / 1e6
    return cumulative


def main() -> dict[str, Any]:
    try:
        server = RedisServer.start()
    except RedisUnavailable as e:
        return {"skipped": str(e)}
    try:
        with tempfile.TemporaryDirectory(prefix="tether-send-bench-") as folder:
            project = Path(folder)
            (project / ".git").mkdir()  # a project root
            url = f"redis://127.0.0.1:{server.port}/0"
            _team(project, None)
            _team(project, url)
            _send(project, None)  # warm the file cache for both
            _send(project, url)
            sqlite: list[float] = []
            redis: list[float] = []
            for _ in range(SENDS):
                sqlite.append(_timed(project, None))
                redis.append(_timed(project, url))
            imported = _imports(project, url)
    finally:
        server.stop()
    own = sorted(
        ((n, t) for n, t in imported.items() if n.startswith("tether.")), key=lambda p: -p[1]
    )
    return {
        "sends": SENDS,
        "sqlite_s": sqlite,
        "redis_s": redis,
        "import_redis_s": imported.get("redis", 0.0),
        "import_tether_s": imported.get("tether", 0.0),
        "own_imports": own[:5],
    }


def report(result: dict[str, Any]) -> None:
    print("== team send: SQLite vs Redis (a new process each) ==")
    if "skipped" in result:
        print(f"skipped: {result['skipped']}")
        return
    sqlite, redis = result["sqlite_s"], result["redis_s"]
    for name, times in (("sqlite", sqlite), ("redis", redis)):
        print(
            f"{name:7} median {statistics.median(times):.3f} s  "
            f"min {min(times):.3f}  max {max(times):.3f}  ({result['sends']} sends)"
        )
    ratio = statistics.median(redis) / statistics.median(sqlite)
    print(f"ratio redis/sqlite (medians): {ratio:.2f}")
    print(f"one redis send: `import redis` {result['import_redis_s']:.3f} s cumulative")
    for name, seconds in result["own_imports"]:
        print(f"  {name:45} {seconds:.3f} s")


if __name__ == "__main__":
    report(main())
