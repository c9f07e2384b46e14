"""What recording a session in the cost ledger costs per tool call.

A scripted conversation is fed to a `LedgerRecorder` as a session emits it: per turn, a
reply asking for two tool calls (`MessageCompleted` with usage), their `ToolFinished`, then
the message of their results (2 KB each). The time spent in `observe` is what the ledger adds
to the session's loop (the pricing, and handing each change to the writer thread, which
writes it off the loop); it is given per tool call (a turn's time over its two calls), as the
mean, p50 and p99 over the turns, the wall clock and the loop thread's CPU side by side (the
p99 is the turns that write what every earlier result cost, every `FLUSH_EVERY` model calls,
and SQLite's WAL checkpoints; on a loaded machine the wall clock adds the waits for a CPU),
early in the conversation and late, with a second process writing to the same ledger at
once or not.

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


def run(path: Path, session: str) -> list[tuple[float, float]]:
    """Seconds per tool call of each turn's recording: (wall clock, the loop thread's CPU).
    Apart, the CPU is what the recording costs; the wall clock adds the waits for a CPU and
    for the interpreter (the writer thread holding it), which a loaded machine makes long."""
    writer = LedgerWriter(path, warn=lambda message: print(message, file=sys.stderr))
    recorder = LedgerRecorder(
        writer, session_id=session, rates_for=lambda _m: Rates(3.0, 15.0, 3.75, 0.3)
    )
    recorder.started("claude-sonnet-5-5", "/")
    per_call: list[tuple[float, float]] = []
    for n in range(TURNS):
        events = turn_events(n, 3000 + n * 1100)
        started, cpu = time.perf_counter(), time.thread_time()
        for event in events:
            recorder.observe(event)  # type: ignore[arg-type]
        per_call.append(((time.perf_counter() - started) / 2, (time.thread_time() - cpu) / 2))
    recorder.close()
    writer.close()
    assert recorder.failed is None, recorder.failed
    return per_call


def quantiles(samples: list[tuple[float, float]]) -> str:
    """Mean, p50 and p99 of the wall clock, then of the CPU, side by side."""
    said = []
    for values in ([s[0] for s in samples], [s[1] for s in samples]):
        cuts = statistics.quantiles(values, n=100)
        mean = statistics.fmean(values)
        said.append(f"{mean * 1000:6.3f} {cuts[49] * 1000:6.3f} {cuts[98] * 1000:7.3f}")
    return "   |   ".join(said)


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
        print(f"ledger: {TURNS} turns of 2 tool calls, recording time per tool call, in ms")
        print(f"  (load average {os.getloadavg()[0]:.1f})")
        print(f"  {'':<26} wall: mean    p50     p99   |   loop thread CPU: mean p50 p99")
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
