"""Grep overhead: ripgrep run directly against tether's Grep tool, on a 50,000-file tree.

Run with `.venv/bin/python bench/grep_bench.py`. The tree is built once and kept in the system
temporary directory. Each repetition runs both sides back to back, alternating which goes
first, so that cache warmth and machine noise fall on both alike. Target: tether within 1.3x.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from tether.protocol import ToolUseBlock
from tether.tools.builtin import builtin_tools
from tether.tools.builtin.ripgrep import rg_binary
from tether.tools.context import ToolContext
from tether.tools.registry import ToolRegistry

FILES = 50_000
FILES_PER_DIR = 200
REPETITIONS = 15
TREE = Path(tempfile.gettempdir()) / "tether-grep-bench-v1"
DONE_MARKER = TREE / ".complete"

PATTERNS = {
    # A few dozen files match: the cost is the walk and the search.
    "rare": r"needle_\d{4}",
    # About a tenth of the files match: also exercises ordering the results by time.
    "common": r"def handle_\w+\(",
}

WORDS = [
    "value",
    "result",
    "index",
    "count",
    "buffer",
    "record",
    "item",
    "parser",
    "token",
    "state",
    "config",
    "client",
    "request",
    "response",
    "handler",
    "cache",
    "queue",
    "worker",
    "event",
    "stream",
    "field",
]


def build_tree() -> Path:
    """Create the tree unless a complete one is already there."""
    if DONE_MARKER.exists():
        return TREE
    rng = random.Random(1234)
    for n in range(FILES):
        directory = TREE / f"pkg{n // FILES_PER_DIR:04}"
        if n % FILES_PER_DIR == 0:
            directory.mkdir(parents=True, exist_ok=True)
        (directory / f"mod{n:05}.py").write_text(_module_text(rng, n))
    DONE_MARKER.touch()
    return TREE


def _module_text(rng: random.Random, n: int) -> str:
    lines = [f'"""Module {n}."""', "", "import os", ""]
    for _ in range(rng.randint(3, 8)):
        name = "_".join(rng.sample(WORDS, 2))
        prefix = "handle_" if rng.random() < 0.02 else ""
        lines += [f"def {prefix}{name}(x):", f"    {rng.choice(WORDS)} = x + {rng.randint(0, 99)}"]
        lines += [f"    return {rng.choice(WORDS)}", ""]
    if n % 997 == 0:
        lines.append(f"# needle_{n % 10000:04}")
    return "\n".join(lines) + "\n"


def time_rg(tree: Path, pattern: str) -> float:
    argv = [str(rg_binary()), "--files-with-matches", "--hidden", "--glob", "!.git"]
    started = time.perf_counter()
    # stdin as the tool has it: rg searches a piped stdin instead of the directory.
    done = subprocess.run(
        [*argv, "--regexp", pattern],
        cwd=tree,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    assert done.returncode == 0, done.stderr
    return elapsed


async def time_tool(registry: ToolRegistry, ctx: ToolContext, pattern: str) -> float:
    call = ToolUseBlock(id="bench", name="Grep", input={"pattern": pattern})
    started = time.perf_counter()
    outcome = await registry.run(call, ctx)
    elapsed = time.perf_counter() - started
    assert not outcome.is_error, outcome.content
    return elapsed


async def measure(tree: Path) -> dict[str, float]:
    registry = ToolRegistry(builtin_tools())
    with tempfile.TemporaryDirectory() as scratch:
        ctx = ToolContext(workspace=tree, scratch_dir=Path(scratch))
        results: dict[str, float] = {}
        for label, pattern in PATTERNS.items():
            time_rg(tree, pattern)  # warm the page cache for both sides
            await time_tool(registry, ctx, pattern)
            direct: list[float] = []
            tool: list[float] = []
            for rep in range(REPETITIONS):
                if rep % 2 == 0:
                    direct.append(time_rg(tree, pattern))
                    tool.append(await time_tool(registry, ctx, pattern))
                else:
                    tool.append(await time_tool(registry, ctx, pattern))
                    direct.append(time_rg(tree, pattern))
            results[f"{label}_rg_s"] = statistics.median(direct)
            results[f"{label}_tether_s"] = statistics.median(tool)
            results[f"{label}_ratio"] = results[f"{label}_tether_s"] / results[f"{label}_rg_s"]
        return results


def main() -> dict[str, float]:
    started = time.perf_counter()
    tree = build_tree()
    built = time.perf_counter() - started
    results = asyncio.run(measure(tree))
    print(f"tree: {FILES:,} files in {tree} (ready in {built:.1f} s)")
    print(f"{'pattern':<10}{'rg median':>12}{'tether median':>16}{'ratio':>8}")
    for label in PATTERNS:
        rg_s = results[f"{label}_rg_s"]
        tether_s = results[f"{label}_tether_s"]
        ratio = results[f"{label}_ratio"]
        print(f"{label:<10}{rg_s * 1000:>10.1f}ms{tether_s * 1000:>14.1f}ms{ratio:>7.2f}x")
    return results


if __name__ == "__main__":
    main()
