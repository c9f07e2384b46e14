"""Memory and disk a session keeps while it works: Revert's snapshots (60 small edits of a 5 MB
file) and a background command that prints without end (`yes` for a few seconds).

Run with `.venv/bin/python bench/resources_bench.py [--baseline SRC]`. Each scenario runs in a
fresh interpreter; `--baseline` runs them again with another tree's `src` first on the path
(an older tether exported with `git archive`), and the two are printed side by side.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EDITS = 60
FILE_BYTES = 5 * 1024 * 1024
YES_SECONDS = 6.0


def _rss_kib() -> tuple[int, int]:
    """(VmRSS, VmHWM) of this process, in KiB."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


def _snapshots_scenario(directory: Path) -> dict[str, float]:
    from tether.protocol import ToolUseBlock
    from tether.tools.builtin import builtin_tools
    from tether.tools.context import ToolContext
    from tether.tools.registry import ToolRegistry

    workspace = directory / "ws"
    workspace.mkdir()
    lines = [f"line {n:07d} " + "x" * 1000 + "\n" for n in range(FILE_BYTES // 1014)]
    (workspace / "big.txt").write_text("".join(lines))
    ctx = ToolContext(workspace=workspace, scratch_dir=directory / "scratch")
    registry = ToolRegistry(builtin_tools())

    async def run() -> None:
        async def call(name: str, **tool_input: object) -> None:
            outcome = await registry.run(ToolUseBlock(id="c", name=name, input=tool_input), ctx)
            assert not outcome.is_error, outcome.content

        await call("Read", file_path="big.txt")
        before = _rss_kib()[0]
        for n in range(EDITS):
            await call("Edit", file_path="big.txt", old_string=f"line {n:07d}", new_string="L")
        after, peak = _rss_kib()
        result.update(rss_before_mib=before / 1024, rss_after_mib=after / 1024)
        result["peak_mib"] = peak / 1024

    result: dict[str, float] = {}
    asyncio.run(run())
    return result


def _background_scenario(directory: Path) -> dict[str, float]:
    from tether.protocol import ToolUseBlock
    from tether.tools.builtin import builtin_tools
    from tether.tools.context import ToolContext
    from tether.tools.registry import ToolRegistry

    workspace = directory / "ws"
    workspace.mkdir()
    scratch = directory / "scratch"
    ctx = ToolContext(workspace=workspace, scratch_dir=scratch)
    registry = ToolRegistry(builtin_tools())

    async def run() -> dict[str, float]:
        call = ToolUseBlock(
            id="c", name="Bash", input={"command": "yes", "run_in_background": True}
        )
        outcome = await registry.run(call, ctx)
        assert not outcome.is_error, outcome.content
        started = time.perf_counter()
        cpu = os.times()
        await asyncio.sleep(YES_SECONDS)
        used = os.times()
        disk = sum(p.stat().st_size for p in scratch.iterdir() if p.is_file())
        await ctx.background.kill_all()
        elapsed = time.perf_counter() - started
        tether_cpu = (used.user - cpu.user) + (used.system - cpu.system)
        return {"log_mib": disk / 1024 / 1024, "tether_cpu_share": tether_cpu / elapsed}

    return asyncio.run(run())


SCENARIOS = {"snapshots": _snapshots_scenario, "background": _background_scenario}


def _child(name: str) -> None:
    with tempfile.TemporaryDirectory(prefix="tether-resources-bench-") as directory:
        print(json.dumps(SCENARIOS[name](Path(directory))))


def _measure(name: str, src: Path | None) -> dict[str, float]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = f"{src}{os.pathsep}{env.get('PYTHONPATH', '')}"
    out = subprocess.run(
        [sys.executable, __file__, "--child", name],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return json.loads(out.stdout.splitlines()[-1])


def main(baseline: Path | None = None) -> dict[str, dict[str, dict[str, float]]]:
    results: dict[str, dict[str, dict[str, float]]] = {}
    for name in SCENARIOS:
        results[name] = {"this tree": _measure(name, None)}
        if baseline is not None:
            results[name]["baseline"] = _measure(name, baseline)
    return results


def report(results: dict[str, dict[str, dict[str, float]]]) -> None:
    print(f"Resources: {EDITS} small edits of a {FILE_BYTES // 1024 // 1024} MB file (RSS),")
    print(f"and a background `yes` for {YES_SECONDS:g} s (its log on disk, tether's CPU share)")
    for name, runs in results.items():
        print(f"  {name}:")
        for label, figures in runs.items():
            shown = ", ".join(f"{key} {value:.2f}" for key, value in figures.items())
            print(f"    {label:>10}: {shown}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--baseline", type=Path, help="another tree's src directory")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child)
    else:
        report(main(args.baseline))
