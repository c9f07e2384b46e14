"""What recording a session in the cost ledger costs per tool call.

A scripted conversation is fed to a `LedgerRecorder` as a session emits it: per turn, a
reply asking for two tool calls (`MessageCompleted` with usage), their `ToolFinished`, then
the message of their results (2 KB each). The time spent in `observe` is what the ledger adds
to the session's loop (the pricing, and handing each change to the writer thread, which
writes it off the loop); it is given per tool call (a turn's time over its two calls), as the
mean, p50 and p99 over the turns (the p99 is the turns that write what every earlier result
cost, every `FLUSH_EVERY` model calls, and SQLite's WAL checkpoints), early in the
conversation and late, with a second process writing to the same ledger at once or not.

    .venv/bin/python bench/ledger_bench.py  [BENCH_TURNS=400]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tether.ledger import LedgerRecorder, LedgerWriter, Rates
from tether.protocol import (
    Message,
    MessageCompleted,
    ToolFinished,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)

TURNS = int(os.environ.get("BENCH_TURNS", "400"))
RESULT = "x" * 2048


def turn_events(n: int, prompt_tokens: int) -> list[object]:
    calls = tuple(
        ToolUseBlock(id=f"t{n}-{k}", name="Bash", input={"command": f"cat f{k}"}) for k in (0, 1)
    )
    usage = Usage(
        input_tokens=50,
        cache_creation_input_tokens=1200,
        cache_read_input_tokens=max(0, prompt_tokens - 1250),
        output_tokens=80,
    )
    reply = MessageCompleted(
        message=Message(role="assistant", content=calls), usage=usage, model="claude-sonnet-5-5"
    )
    finished = [
        ToolFinished(call_id=c.id, name="Bash", content=RESULT, is_error=False, duration_ms=3)
        for c in calls
    ]
    results = Message(
        role="user", content=tuple(ToolResultBlock(tool_use_id=c.id, content=RESULT) for c in calls)
    )
    return [reply, *finished, MessageCompleted(message=results)]


def run(path: Path, session: str) -> list[float]:
    """Seconds per tool call of each turn's recording."""
    writer = LedgerWriter(path, warn=lambda message: print(message, file=sys.stderr))
    recorder = LedgerRecorder(
        writer, session_id=session, rates_for=lambda _m: Rates(3.0, 15.0, 3.75, 0.3)
    )
    recorder.started("claude-sonnet-5-5", "/")
    per_call: list[float] = []
    for n in range(TURNS):
        events = turn_events(n, 3000 + n * 1100)
        started = time.perf_counter()
        for event in events:
            recorder.observe(event)  # type: ignore[arg-type]
        per_call.append((time.perf_counter() - started) / 2)
    recorder.close()
    writer.close()
    assert recorder.failed is None, recorder.failed
    return per_call


def quantiles(values: list[float]) -> str:
    cuts = statistics.quantiles(values, n=100)
    mean = statistics.fmean(values)
    return f"mean {mean * 1000:.3f} ms, p50 {cuts[49] * 1000:.3f} ms, p99 {cuts[98] * 1000:.3f} ms"


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ledger.db"
        alone = run(path, "alone")
        other = subprocess.Popen(
            [sys.executable, __file__, "--writer", str(path)], stdout=subprocess.DEVNULL
        )
        shared = run(path, "shared")
        other.wait()
        tenth = max(2, TURNS // 10)
        print(f"ledger: {TURNS} turns of 2 tool calls, recording time per tool call")
        print(f"  alone, first {tenth} turns:  {quantiles(alone[:tenth])}")
        print(f"  alone, last {tenth} turns:   {quantiles(alone[-tenth:])}")
        print(f"  alone, all:               {quantiles(alone)}")
        print(f"  beside a second writer:   {quantiles(shared)}")
        print(f"  ledger file: {path.stat().st_size / 1024:.0f} KiB")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--writer"]:
        run(Path(sys.argv[2]), "other")
    else:
        main()
