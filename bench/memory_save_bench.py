"""The cost of a memory save naming same-subject memories, this tree against an earlier
revision, in one run: p50/p99 of `MemoryStore.save` over a file of 64 memories that each share
a word with every new one and none of which is on its subject, so a save compares its memory
with all 64 (`store.SUBJECT_DEPTH`), the case where naming costs most.

The embedder is a stand-in (a vector drawn from a generator seeded by the text, about
0.1 ms), so the figure is the save's own work, not the model's. Rounds alternate between
the two trees, each a fresh process on its own copy of the file, so both see the same load.

    .venv/bin/python bench/memory_save_bench.py [BEFORE_REV=c74102a3] [BENCH_ROUNDS=4]

`BEFORE_REV` (a git revision; default the tree before subjects were kept worked out) is
extracted with `git archive` into a temporary folder."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "4"))
BEFORE_REV = os.environ.get("BEFORE_REV", "c74102a3")
MEMORIES = 64
SAVES = 40

_EMBEDDER = """
import random
class HashEmbedder:
    name = "hash"
    def embed(self, texts, timeout=None):
        return [[r.uniform(-1, 1) for _ in range(384)] for r in map(random.Random, texts)]
"""

_FILL = (
    _EMBEDDER
    + """
import sys
from pathlib import Path
from tether.memory.store import MemoryStore
store = MemoryStore(Path(sys.argv[1]), HashEmbedder())
areas = "billing search upload export report import audit mailer".split()
for i in range(int(sys.argv[2])):
    area = areas[i % len(areas)]
    store.save(f"The service for {area} number {i} keeps its retries in the job queue, "
               f"and its logs rotate every {i % 7 + 1} days once the job is done.")
store.close()
"""
)

_ROUND = (
    _EMBEDDER
    + """
import json, sys, time
from pathlib import Path
from tether.memory.store import MemoryStore
store = MemoryStore(Path(sys.argv[1]), HashEmbedder())
times = []
for i in range(int(sys.argv[2])):
    text = f"note {i}: the service job writes its logs to the queue before it is done."
    start = time.perf_counter()
    store.save(text)
    times.append(time.perf_counter() - start)
    store.remove([store.list(1)[0].id])  # the file stays at its 64 memories
print(json.dumps(times))
"""
)


def run(src: Path, script: str, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = [sys.executable, "-c", script, *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout


def before_tree(folder: Path) -> Path:
    """`BEFORE_REV`'s `src`, extracted under `folder`."""
    archive = subprocess.run(
        ["git", "-C", str(HERE.parent), "archive", BEFORE_REV, "src"],
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder / "src"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        trees = {f"before ({BEFORE_REV})": before_tree(folder), "this tree": SRC}
        store = folder / "memory.db"
        run(SRC, _FILL, str(store), str(MEMORIES))
        times: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(ROUNDS):
            for name, src in trees.items():
                copy = folder / f"round-{time.monotonic_ns()}.db"
                shutil.copy(store, copy)
                times[name] += json.loads(run(src, _ROUND, str(copy), str(SAVES)))
                copy.unlink()
    print(
        f"save with {MEMORIES} memories sharing its words, none on its subject, {ROUNDS} rounds "
        f"alternated, load average {os.getloadavg()[0]:.1f}"
    )
    for name, found in times.items():
        found.sort()
        p50 = statistics.median(found) * 1000
        p99 = found[int(len(found) * 0.99) - 1] * 1000
        print(f"  {name:20} p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  ({len(found)} saves)")


if __name__ == "__main__":
    main()
