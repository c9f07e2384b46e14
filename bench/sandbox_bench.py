"""Sandbox overhead per Bash call: the Bash tool's `true` under bubblewrap against the same call
unsandboxed, as a ratio and in milliseconds.

Both go through `run_shell`, the Bash tool's runner (fork, output capture, the working-directory
report), so the difference is what the sandbox adds. Runs alternate, one of each per round, and
medians are reported (shared machines are noisy: the interleaving spreads the noise over both).

Workspaces: an empty one; a tree of 1,000 directories three levels deep with 5 nested
repositories (each sandboxed call looks for nested projects and guards their files: some sixty
placeholders), commands back to back; and the same tree with commands further apart than the
placeholders linger (`Sandbox.placeholder_linger_s`), so that every command makes them again.

`BENCH_SANDBOX_BASELINE=<git revision>` measures the code of that revision too (its `src`,
exported with `git archive`), round for round interleaved with this tree's, each in a process of
its own: before and after side by side under the same load.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROUNDS = int(os.environ.get("BENCH_SANDBOX_ROUNDS", "60"))
BASELINE = os.environ.get("BENCH_SANDBOX_BASELINE")
COMMAND = "true"
ROOT = Path(__file__).resolve().parent.parent
APART_S = 2.5
"""The pause before each round of the third workspace: past the placeholders' linger (2 s)."""


def _tree(workspace: Path) -> None:
    """1,000 directories three levels deep; 5 of the top ones are repositories."""
    for i in range(10):
        for j in range(10):
            for k in range(10):
                (workspace / f"pkg{i}" / f"mod{j}" / f"part{k}").mkdir(parents=True)
    for i in range(5):
        (workspace / f"pkg{i}" / ".git" / "hooks").mkdir(parents=True)
        (workspace / f"pkg{i}" / ".git" / "config").write_text("[core]\n")


def _tree_with_env(workspace: Path) -> None:
    """The same tree with a `.env` at the top, in each repository, and in a dependency
    directory of 2,000 files (walked: `Read(**/.env)` holds there too)."""
    _tree(workspace)
    (workspace / ".env").write_text("SECRET=1\n")
    for i in range(5):
        (workspace / f"pkg{i}" / ".env").write_text("SECRET=1\n")
    for i in range(200):
        package = workspace / "node_modules" / f"dep{i}"
        package.mkdir(parents=True)
        for j in range(10):
            (package / f"f{j}.js").write_text("")
    (workspace / "node_modules" / "dep7" / ".env").write_text("SECRET=1\n")


READ_DENY = "Read(**/.env)"
"""The rule of the last scenario: the session hides what it names (trees before that feature
measure the same tree, without it)."""

SCENARIOS: list[tuple[str, Callable[[Path], None] | None, float]] = [
    ("empty workspace", None, 0.0),
    ("1,000 directories, 5 repositories", _tree, 0.0),
    (f"1,000 directories, 5 repositories, commands {APART_S:g} s apart", _tree, APART_S),
    (
        f"1,000 directories, 5 repositories, 2,200 files in node_modules, {READ_DENY} denied "
        "(7 .env files hidden)",
        _tree_with_env,
        0.0,
    ),
]


def _worker(scenario: int) -> None:
    """One tree's side: build the workspace, then answer each `round` line on stdin with the
    seconds of one unsandboxed and one sandboxed call."""
    import tether
    from tether.sandbox import SandboxSettings, plan_sandbox, probe
    from tether.tools.builtin.shell_run import run_shell

    _, fill, pause = SCENARIOS[scenario]
    status = probe()
    if not status.works:
        print(f"unavailable {status.reason}", flush=True)
        return
    with tempfile.TemporaryDirectory(prefix="tether-sandbox-bench-") as base:
        workspace, scratch = Path(base, "ws"), Path(base, "scratch")
        workspace.mkdir()
        if fill is not None:
            fill(workspace)
        extra: dict[str, object] = {}
        if fill is _tree_with_env and "read_denials" in inspect.signature(plan_sandbox).parameters:
            from tether.permissions import read_deny_matcher
            from tether.permissions.rules import RuleSet, parse_rule
            from tether.sandbox import ReadDenials

            rule = parse_rule(READ_DENY, "deny", source="bench", project_root=workspace)
            match, prefixes, names = read_deny_matcher(
                RuleSet((rule,)), workspace=workspace.resolve(), home=Path.home()
            )
            extra["read_denials"] = ReadDenials(match, prefixes, names)
        sandbox, _, _ = plan_sandbox(
            SandboxSettings(),
            status,
            workspace=workspace,
            scratch_dir=scratch,
            home=Path.home(),
            **extra,  # type: ignore[arg-type]
        )
        assert sandbox is not None

        async def once(wrapper: object) -> float:
            started = time.perf_counter()
            run = await run_shell(COMMAND, workspace, 30.0, scratch, wrapper=wrapper)  # type: ignore[arg-type]
            elapsed = time.perf_counter() - started
            if run.returncode != 0:
                raise RuntimeError(f"`{COMMAND}` failed ({run.returncode}): {run.output}")
            return elapsed

        async def serve() -> None:
            for _ in range(3):  # warm-up: page cache, first bwrap exec
                await once(None)
                await once(sandbox.wrap)
            print(f"ready {Path(tether.__file__).parent}", flush=True)
            for line in sys.stdin:
                if line.strip() != "round":
                    break
                await asyncio.sleep(pause)
                plain = await once(None)
                sandboxed = await once(sandbox.wrap)
                print(f"{plain} {sandboxed}", flush=True)

        asyncio.run(serve())


class _Side:
    """A worker process measuring one tree (`src` first on its path)."""

    def __init__(self, src: Path, scenario: int) -> None:
        env = {**os.environ, "PYTHONPATH": str(src)}
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", str(scenario)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert self.proc.stdout is not None
        self.ready = self.proc.stdout.readline().strip()
        self.plain: list[float] = []
        self.sandboxed: list[float] = []

    def round(self) -> None:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write("round\n")
        self.proc.stdin.flush()
        plain, sandboxed = self.proc.stdout.readline().split()
        self.plain.append(float(plain))
        self.sandboxed.append(float(sandboxed))

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()

    def figures(self) -> dict[str, float]:
        plain_ms = statistics.median(self.plain) * 1000
        sandboxed_ms = statistics.median(self.sandboxed) * 1000
        return {
            "plain_ms": plain_ms,
            "sandboxed_ms": sandboxed_ms,
            "overhead_ms": sandboxed_ms - plain_ms,
            "ratio": sandboxed_ms / plain_ms,
        }


def _export(revision: str, into: Path) -> Path:
    """`src` of `revision`, exported under `into`."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "src"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into / "src"


def _measure(scenario: int, sources: list[Path]) -> list[dict[str, float]] | None:
    sides = [_Side(src, scenario) for src in sources]
    try:
        for side in sides:
            if not side.ready.startswith("ready "):
                print(f"sandbox overhead: not measured, the sandbox cannot run here: {side.ready}")
                return None
        rounds = ROUNDS if SCENARIOS[scenario][2] == 0 else max(5, ROUNDS // 4)
        for _ in range(rounds):
            for side in sides:
                side.round()
        return [side.figures() for side in sides]
    finally:
        for side in sides:
            side.close()


def main() -> dict[str, float]:
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="tether-sandbox-baseline-") as exported:
        sources = [ROOT / "src"]
        names = ["this tree"]
        if BASELINE:
            sources.insert(0, _export(BASELINE, Path(exported)))
            names.insert(0, f"at {BASELINE}")
        for index, (name, _, pause) in enumerate(SCENARIOS):
            measured = _measure(index, sources)
            if measured is None:
                return {}
            rounds = ROUNDS if pause == 0 else max(5, ROUNDS // 4)
            print(
                f"sandbox overhead per Bash call (`{COMMAND}`, median of {rounds} interleaved "
                f"rounds), {name}"
            )
            print("               " + "".join(f"{n:>24}" for n in names))
            for label, key in (("unsandboxed", "plain_ms"), ("sandboxed", "sandboxed_ms")):
                print(f"  {label:<13}" + "".join(f"{f[key]:>21.1f} ms" for f in measured))
            print(
                "  overhead     "
                + "".join(f"{f['overhead_ms']:>13.1f} ms ({f['ratio']:.2f}x)" for f in measured)
            )
            prefix = ("", "tree_", "apart_", "denied_")[index]
            results.update({f"{prefix}{key}": value for key, value in measured[-1].items()})
    return results


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        _worker(int(sys.argv[2]))
    else:
        main()
