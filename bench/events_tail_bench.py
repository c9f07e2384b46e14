"""`tether events tail` on a large event log: wall time and peak memory.

    .venv/bin/python bench/events_tail_bench.py [SIZE_MB]
    BENCH_BASELINE=<another checkout>/src .venv/bin/python bench/events_tail_bench.py

Writes a log of SIZE_MB (default 100) of tool records (2 KB results) in a temporary home,
then runs `tether events tail -n 20`, `-n 1 --kind notice` (one notice near the end) and
`-n 1 --kind error` (none: the whole log is read) three times each, this tree and the
baseline's interleaved: the median wall time and the largest peak RSS of each.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tether.observe.log_file import AppendFile
from tether.observe.records import EventRecord, log_dir


def _fill(home: Path, size_mb: int) -> None:
    log = AppendFile(log_dir(home) / "events.jsonl", max_bytes=None)
    body = "x" * 2048
    lines: list[str] = []
    written, n = 0, 0
    while written < size_mb << 20:
        payload = {"call_id": f"c{n}", "name": "Bash", "content": body, "is_error": False}
        line = EventRecord(
            "s1", "main", None, "2026-01-01T00:00:00.000000Z", "tool_finished", payload
        ).to_json()
        lines.append(line)
        written += len(line) + 1
        n += 1
        if len(lines) == 1000:
            log.append(lines)
            lines = []
    note = EventRecord(
        "s1", "main", None, "2026-01-01T00:00:01.000000Z", "notice", {"message": "near the end"}
    )
    log.append([*lines, note.to_json(), *lines[:50]])
    log.close()


def _run(src: str | None, home: Path, args: list[str]) -> tuple[float, int]:
    env = {**os.environ, "TETHER_HOME": str(home)}
    if src is not None:
        env["PYTHONPATH"] = src
    code = (
        "import resource,runpy,sys; sys.argv=['tether',*sys.argv[1:]]\n"
        "try: runpy.run_module('tether', run_name='__main__')\n"
        "finally: print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)"
    )
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - start
    return wall, int(done.stderr.strip().splitlines()[-1])


def main() -> None:
    size_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    baseline = os.environ.get("BENCH_BASELINE")
    trees: list[tuple[str, str | None]] = [("this tree", None)]
    if baseline:
        trees.append(("baseline", baseline))
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        _fill(home, size_mb)
        print(
            f"log: {(log_dir(home) / 'events.jsonl').stat().st_size / 1e6:.0f} MB, "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        cases = (
            ["events", "tail", "-n", "20"],
            ["events", "tail", "-n", "1", "--kind", "notice"],
            ["events", "tail", "-n", "1", "--kind", "error"],  # none: the whole log is read
        )
        for args in cases:
            for name, src in trees:
                runs = [_run(src, home, args) for _ in range(3)]
                wall = statistics.median(r[0] for r in runs)
                rss = max(r[1] for r in runs) / 1024
                print(f"{' '.join(args[2:]):>20}  {name:>10}: {wall:.2f} s, peak RSS {rss:.0f} MB")


if __name__ == "__main__":
    main()
