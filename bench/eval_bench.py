"""`tether eval` throughput: the sample suite (4 small bug fixes, two of them judged) against
the fake model, which answers each request after 300 ms, run one at a time and 4 in
parallel. Every run is a real `tether -p` process in its own copy, then its check (and
judge). Reported: wall time of the whole `tether eval` command, runs per minute, pass count.

    .venv/bin/python bench/eval_bench.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fake_env import fake_env
from tether.evals.suite import load_suite
from tether.testing import FakeModelServer
from tether.testing.evals import load_solutions, suite_answers

SAMPLE = Path(__file__).resolve().parents[1] / "evals" / "sample"
LATENCY_S = 0.3
REPEAT = 2


def eval_run(parallel: int, tmp: Path) -> dict[str, float]:
    suite = load_suite(SAMPLE / "suite.yaml")
    with FakeModelServer() as fake:
        fake.latency_s = LATENCY_S
        fake.responder = suite_answers(suite, load_solutions(SAMPLE / "solutions.yaml"))
        home = tmp / f"home-{parallel}"
        home.mkdir()
        out = tmp / f"out-{parallel}"
        argv = [sys.executable, "-m", "tether", "eval", str(SAMPLE / "suite.yaml")]
        argv += ["--parallel", str(parallel), "--repeat", str(REPEAT), "--out", str(out)]
        began = time.perf_counter()
        subprocess.run(argv, cwd=tmp, env=fake_env(fake, home), capture_output=True, check=True)
        wall = time.perf_counter() - began
    runs = json.loads((out / "results.json").read_text())["runs"]
    return {
        "runs": len(runs),
        "passed": sum(r["passed"] for r in runs),
        "wall_s": wall,
        "per_minute": len(runs) / wall * 60,
        "mean_run_s": sum(r["wall_s"] for r in runs) / len(runs),
    }


def main() -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory(prefix="tether-eval-bench-") as tmp:
        return {str(n): eval_run(n, Path(tmp)) for n in (1, 4)}


def report(results: dict[str, dict[str, float]]) -> None:
    print(
        f"eval: the sample suite x{REPEAT} (4 cases, 2 judged), fake model "
        f"{LATENCY_S * 1000:.0f} ms a request"
    )
    head = ("parallel", "runs", "passed", "wall", "runs/min", "run (mean)")
    print("  {:<9} {:>5} {:>7} {:>8} {:>9} {:>11}".format(*head))
    for name, row in results.items():
        print(
            f"  {name:<9} {row['runs']:>5.0f} {row['passed']:>7.0f} {row['wall_s']:>7.1f}s"
            f" {row['per_minute']:>9.1f} {row['mean_run_s']:>10.1f}s"
        )
    one, four = results["1"], results["4"]
    print(f"  4 in parallel / 1 at a time: {four['per_minute'] / one['per_minute']:.2f}x")


if __name__ == "__main__":
    report(main())
