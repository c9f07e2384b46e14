"""The sweeps after a sandboxed command: the git sweep (`sandbox/git_sweep.py`) and the start-up
file sweep (`sandbox/start_sweep.py`) on a workspace of about 56,000 entries (5,600 directories,
9 files each, 5 repositories), as the Bash tool runs them after every command.

No bwrap: the sweeps are called as `Sandbox.wrap` calls them, around a "command" that writes one
ordinary file (a directory's listing changes, as a build's output does). Reported: the session's
first walk, and the median per command of both sweeps.

`BENCH_SWEEP_BASELINE=<git revision>` measures that revision's `src` too (exported with
`git archive`), each side in a process of its own, rounds interleaved under the same load: the
two side by side, with the ratio.
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

ROUNDS = int(os.environ.get("BENCH_SWEEP_ROUNDS", "30"))
BASELINE = os.environ.get("BENCH_SWEEP_BASELINE")
ROOT = Path(__file__).resolve().parent.parent


def _tree(workspace: Path) -> None:
    for i in range(56):
        for j in range(100):
            directory = workspace / f"pkg{i}" / f"mod{j}"
            directory.mkdir(parents=True)
            for k in range(9):
                (directory / f"f{k}.py").write_text("x = 1\n")
    for i in range(5):
        subprocess.run(["git", "init", "-q", str(workspace / f"pkg{i}")], check=True)
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)


def _worker(workspace: str) -> None:
    from tether.sandbox.git_sweep import GitSweep
    from tether.sandbox.start_sweep import StartSweep

    roots = (Path(workspace),)
    git, start = GitSweep(), StartSweep()
    # As `Sandbox.wrap` does: the git sweep's directory stats shared where the code has that.
    shared: dict[str, Any] = {"stats": git.stats} if hasattr(git, "stats") else {}
    began = time.perf_counter()
    git.started(roots)
    start.started(roots, **shared)
    start.ended()
    print(f"ready {time.perf_counter() - began:.6f}", flush=True)
    for n, line in enumerate(sys.stdin, start=1):
        if line.strip() != "round":
            break
        start.started(roots, **shared)
        output = Path(workspace) / f"pkg{n % 56}" / f"mod{n % 100}" / f"out{os.getpid()}.txt"
        output.write_text("built\n")
        began = time.perf_counter()
        git.sweep(roots)
        start.sweep(roots)
        took = time.perf_counter() - began
        start.ended()
        output.unlink()
        print(f"{took:.6f}", flush=True)


class _Side:
    def __init__(self, src: Path, workspace: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(src)}
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", str(workspace)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.proc.stdout is not None
        self.first = float(self.proc.stdout.readline().split()[1])
        self.times: list[float] = []

    def round(self) -> None:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write("round\n")
        self.proc.stdin.flush()
        self.times.append(float(self.proc.stdout.readline()))

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def _export(revision: str, into: Path) -> Path:
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "src"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="tether-sweep-bench-") as base:
        sources, names = [ROOT / "src"], ["this tree"]
        if BASELINE:
            sources.insert(0, _export(BASELINE, Path(base)))
            names.insert(0, f"at {BASELINE}")
        workspaces: list[Path] = []
        for index in range(len(sources)):
            workspace = Path(base) / f"ws{index}"
            _tree(workspace)
            workspaces.append(workspace)
        sides = [_Side(src, ws) for src, ws in zip(sources, workspaces, strict=True)]
        try:
            for _ in range(ROUNDS):
                for side in sides:
                    side.round()
        finally:
            for side in sides:
                side.close()
    first = [side.first * 1000 for side in sides]
    each = [statistics.median(side.times) * 1000 for side in sides]
    print(f"sweeps after a command, 56,000 entries (median of {ROUNDS} interleaved rounds)")
    print("                 " + "".join(f"{n:>22}" for n in names))
    print("  first walk     " + "".join(f"{f:>19.0f} ms" for f in first))
    print("  per command    " + "".join(f"{f:>19.0f} ms" for f in each))
    if len(sides) == 2:
        print(
            f"  ratio (this tree / baseline): first {first[1] / first[0]:.2f}, "
            f"per command {each[1] / each[0]:.2f}"
        )
    return {"sweep_first_ms": first[-1], "sweep_per_command_ms": each[-1]}


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        _worker(sys.argv[2])
    else:
        main()
