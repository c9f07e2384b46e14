"""Sandbox overhead per Bash call: the Bash tool's `true` under bubblewrap against the same call
unsandboxed, as a ratio and in milliseconds.

Both go through `run_shell`, the Bash tool's runner (fork, output capture, the working-directory
report), so the difference is what the sandbox adds. Runs alternate, one of each per round, and
medians are reported (shared machines are noisy: the interleaving spreads the noise over both).

Two workspaces: an empty one, and a tree of 1,000 directories three levels deep with 5 nested
repositories (each sandboxed call looks for nested projects and guards their files).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from tether.sandbox import SandboxSettings, plan_sandbox, probe
from tether.tools.builtin.bash import run_shell
from tether.tools.context import CommandWrapper

ROUNDS = int(os.environ.get("BENCH_SANDBOX_ROUNDS", "60"))
COMMAND = "true"


async def _time_call(workspace: Path, scratch: Path, wrapper: CommandWrapper | None) -> float:
    started = time.perf_counter()
    run = await run_shell(COMMAND, workspace, 30.0, scratch, wrapper=wrapper)
    elapsed = time.perf_counter() - started
    if run.returncode != 0:
        raise RuntimeError(f"`{COMMAND}` failed ({run.returncode}): {run.output}")
    return elapsed


async def _measure(workspace: Path, scratch: Path, wrapper: CommandWrapper) -> dict[str, float]:
    plain: list[float] = []
    sandboxed: list[float] = []
    for _ in range(3):  # warm-up: page cache, first bwrap exec
        await _time_call(workspace, scratch, None)
        await _time_call(workspace, scratch, wrapper)
    for _ in range(ROUNDS):
        plain.append(await _time_call(workspace, scratch, None))
        sandboxed.append(await _time_call(workspace, scratch, wrapper))
    plain_ms = statistics.median(plain) * 1000
    sandboxed_ms = statistics.median(sandboxed) * 1000
    return {
        "plain_ms": plain_ms,
        "sandboxed_ms": sandboxed_ms,
        "overhead_ms": sandboxed_ms - plain_ms,
        "ratio": sandboxed_ms / plain_ms,
    }


def _tree(workspace: Path) -> None:
    """1,000 directories three levels deep; 5 of the top ones are repositories."""
    for i in range(10):
        for j in range(10):
            for k in range(10):
                (workspace / f"pkg{i}" / f"mod{j}" / f"part{k}").mkdir(parents=True)
    for i in range(5):
        (workspace / f"pkg{i}" / ".git" / "hooks").mkdir(parents=True)
        (workspace / f"pkg{i}" / ".git" / "config").write_text("[core]\n")


def main() -> dict[str, float]:
    status = probe()
    if not status.works:
        print(f"sandbox overhead: not measured, the sandbox cannot run here: {status.reason}")
        return {}
    results: dict[str, float] = {}
    for name, fill in (("empty workspace", None), ("1,000 directories, 5 repositories", _tree)):
        with tempfile.TemporaryDirectory(prefix="tether-sandbox-bench-") as base:
            workspace, scratch = Path(base, "ws"), Path(base, "scratch")
            workspace.mkdir()
            if fill is not None:
                fill(workspace)
            sandbox, _, _ = plan_sandbox(
                SandboxSettings(),
                status,
                workspace=workspace,
                scratch_dir=scratch,
                home=Path.home(),
            )
            assert sandbox is not None
            figures = asyncio.run(_measure(workspace, scratch, sandbox.wrap))
        print(
            f"sandbox overhead per Bash call (`{COMMAND}`, median of {ROUNDS} interleaved "
            f"rounds), {name}"
        )
        print(f"  unsandboxed  {figures['plain_ms']:7.1f} ms")
        print(f"  sandboxed    {figures['sandboxed_ms']:7.1f} ms")
        print(f"  overhead     {figures['overhead_ms']:7.1f} ms  ({figures['ratio']:.2f}x)")
        if fill is None:
            results = figures
        else:
            results.update({f"tree_{key}": value for key, value in figures.items()})
    return results


if __name__ == "__main__":
    main()
