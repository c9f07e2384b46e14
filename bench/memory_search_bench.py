"""Memory search latency, this tree against another, in one run: p50/p99 of `MemoryStore.search`
(limit 5, the local model embedding each question) over `BENCH_MEMORIES` (10,000) memories.

The store is filled once (as `memory_bench.py` fills it); then rounds alternate between the two
trees, each a fresh process on its own copy of the file, so both see the same machine load.

    .venv/bin/python bench/memory_search_bench.py [BEFORE_SRC=<another tree's src>]
        [BENCH_ROUNDS=4]

Without `BEFORE_SRC` only this tree is measured (e.g. `git worktree add /tmp/before main`,
then `BEFORE_SRC=/tmp/before/src`)."""

from __future__ import annotations

import json
import os
import random
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
MEMORIES = int(os.environ.get("BENCH_MEMORIES", "10000"))

_ROUND = """
import json, sys, time
from pathlib import Path
from tether.memory.embedders import local_embedder
from tether.memory.store import MemoryStore
questions = json.loads(sys.argv[2])
store = MemoryStore(Path(sys.argv[1]), local_embedder())
store.search("warm up", 5)
times = []
for _ in range(3):
    for q in questions:
        start = time.perf_counter()
        store.search(q, 5)
        times.append(time.perf_counter() - start)
print(json.dumps(times))
"""


def fill(path: Path) -> list[str]:
    """The store at `path` with `MEMORIES` memories; the bench set's questions."""
    sys.path.insert(0, str(HERE))
    from memory_bench import SET, Noisy  # pyright: ignore[reportMissingImports]
    from tether.memory.embedders import local_embedder
    from tether.memory.store import MemoryStore

    embedder = local_embedder()
    if embedder is None:
        sys.exit("the memory extra is not installed")
    data = json.loads(SET.read_text())
    pool = [m["text"] for m in data["memories"]]
    rng = random.Random(7)
    base = dict(zip(pool, embedder.embed(pool), strict=True))
    store = MemoryStore(path, Noisy(embedder.name, embedder.dimensions, base, rng))
    for i in range(MEMORIES):
        a, b = rng.sample(pool, 2)
        store.save(f"{a} ({i}) {b[: rng.randint(10, len(b))]}")
    store.close()
    return [q["q"] for q in data["queries"]]


def one_round(src: Path, store: Path, questions: list[str], folder: Path) -> list[float]:
    copy = folder / f"round-{time.monotonic_ns()}.db"
    shutil.copy(store, copy)
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run(
        [sys.executable, "-c", _ROUND, str(copy), json.dumps(questions)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    copy.unlink()
    return json.loads(out)


def main() -> None:
    trees = {"this tree": SRC}
    if os.environ.get("BEFORE_SRC"):
        trees = {"before": Path(os.environ["BEFORE_SRC"]), **trees}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        store = folder / "memory.db"
        questions = fill(store)
        times: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(ROUNDS):
            for name, src in trees.items():
                times[name] += one_round(src, store, questions, folder)
    print(
        f"search over {MEMORIES} memories, limit 5, {ROUNDS} rounds alternated, load average "
        f"{os.getloadavg()[0]:.1f}"
    )
    for name, found in times.items():
        found.sort()
        p50 = statistics.median(found) * 1000
        p99 = found[int(len(found) * 0.99) - 1] * 1000
        print(f"  {name:10} p50 {p50:6.1f} ms  p99 {p99:6.1f} ms  ({len(found)} searches)")


if __name__ == "__main__":
    main()
