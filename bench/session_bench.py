"""Session files: loading a long one, and whether appending stays flat as the file grows.

A 5,000-entry session is written through `SessionWriter`: user and assistant entries in turn,
each assistant calling a tool with a ~1 KB argument and each user entry answering with a ~1.5 KB
result. Reported: (1) the median time of `load_session` on it and the peak memory one load
allocates (tracemalloc); (2) the median cost of one append over entries 50-149 and over
the last 100 entries before 5,000 of the same file, and their ratio (target: about 1.0, since an
append never reads or rewrites the file). Three files are grown and each append figure is the
lowest of their three medians, so that a busy moment on a shared machine does not pass for a
slower append; (3) `list_sessions` over 200 sessions of 50 entries.

`python bench/session_bench.py resume` measures resuming a big session file instead (100 MB
by default, `BENCH_RESUME_MB`): `tether -c -p` run as a process against the fake model server,
its peak RSS (from `wait4`), wall time and whether its request was accepted, for the shapes of
`SHAPES`: reads compacted every 40 rounds, reads never compacted (the whole history past any
window), many small messages, a few huge tool results, a compaction every other round
(`BENCH_RESUME_SHAPES` picks some). With `BENCH_BEFORE_SRC=<an older src/ tree>` the same
runs are made with that tree first on the path, and the ratios are printed side by side.
"""

from __future__ import annotations

import gc
import os
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from tether.protocol import Message, TextBlock, ToolResultBlock, ToolUseBlock, Usage
from tether.store import SessionWriter, list_sessions, load_session, project_dir

ENTRIES = int(os.environ.get("BENCH_SESSION_ENTRIES", "5000"))
WINDOW = 100
GROWTHS = 3  # files grown; each figure is the quietest of their medians (the machine is shared)
LOADS = 5
LISTED = 200


def _source(n: int) -> str:
    """About a kilobyte of Python, different for each n."""
    return "".join(f"def f{n}_{i}(x):\n    return x * {i} + {n}  # step {i}\n" for i in range(20))


def _append(writer: SessionWriter, n: int) -> None:
    turn = n // 2
    if n % 2:
        reply = Message(
            role="assistant",
            content=(
                TextBlock(text=f"Writing module {turn}."),
                ToolUseBlock(
                    id=f"toolu_{turn:06d}",
                    name="Write",
                    input={"file_path": f"src/m{turn}.py", "content": _source(turn)},
                ),
            ),
        )
        writer.assistant(reply, Usage(input_tokens=1000 + turn, output_tokens=300))
    else:
        output = (_source(turn) * 2)[:1500]
        result = ToolResultBlock(tool_use_id=f"toolu_{turn - 1:06d}", content=output)
        writer.user([result] if turn else [TextBlock(text="Write the modules.")])


def _timed_appends(directory: Path) -> tuple[Path, list[float]]:
    """Write the whole session; the seconds per entry of each user + assistant pair, timed
    together because the two kinds differ in cost and a median over a mix of both is unstable."""
    seconds: list[float] = []
    gc.disable()  # a collection landing in one window but not the other is not the file's doing
    try:
        with SessionWriter.create(directory, "long", cwd=directory, model="bench") as writer:
            for n in range(0, ENTRIES, 2):
                started = time.perf_counter()
                _append(writer, n)
                _append(writer, n + 1)
                seconds.append((time.perf_counter() - started) / 2)
    finally:
        gc.enable()
    return writer.path, seconds


def _list_time(home: Path) -> float:
    here = project_dir(home, home)
    for s in range(LISTED):
        with SessionWriter.create(here, f"s{s:04d}", cwd=home) as writer:
            writer.title(f"Session {s}")
            for n in range(50):
                _append(writer, n)
    started = time.perf_counter()
    assert len(list_sessions(home, home)) == LISTED
    return time.perf_counter() - started


def main() -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        pairs = WINDOW // 2
        early: list[float] = []
        late: list[float] = []
        for run in range(GROWTHS):
            path, appends = _timed_appends(Path(tmp) / str(run))
            early.append(statistics.median(appends[(100 - WINDOW // 2) // 2 :][:pairs]))
            late.append(statistics.median(appends[-pairs:]))
        load_times: list[float] = []
        for _ in range(LOADS):
            started = time.perf_counter()
            loaded = load_session(path)
            load_times.append(time.perf_counter() - started)
        assert len(tuple(loaded.records())) == ENTRIES
        assert not loaded.warnings
        tracemalloc.start()
        load_session(path)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return {
            "entries": float(ENTRIES),
            "file_bytes": float(path.stat().st_size),
            "load_seconds": statistics.median(load_times),
            "load_peak_bytes": float(peak),
            "append_early_seconds": min(early),
            "append_late_seconds": min(late),
            "append_ratio": min(late) / min(early),
            "list_seconds": _list_time(Path(tmp) / "home"),
        }


def report(figures: dict[str, float]) -> None:
    entries, size = int(figures["entries"]), figures["file_bytes"]
    print(f"session files ({entries:,} entries, {size / 2**20:.1f} MiB)")
    rows = (
        (f"load_session (median of {LOADS})", f"{figures['load_seconds'] * 1000:8.1f} ms"),
        ("peak memory while loading", f"{figures['load_peak_bytes'] / 2**20:8.1f} MiB"),
        ("append at entry 100", f"{figures['append_early_seconds'] * 1e6:8.1f} us"),
        (f"append at entry {entries:,}", f"{figures['append_late_seconds'] * 1e6:8.1f} us"),
        ("late / early append", f"{figures['append_ratio']:8.2f}    (target ~1.0: flat)"),
        (f"list_sessions over {LISTED} files", f"{figures['list_seconds'] * 1000:8.1f} ms"),
    )
    for label, value in rows:
        print(f"  {label:34}{value}")


RESUME_MB = int(os.environ.get("BENCH_RESUME_MB", "100"))
_CHUNK = "".join(f"line {i}: " + "x" * 60 + "\n" for i in range(300))  # a ~20 KB file read
SHAPES: dict[str, tuple[str, int]] = {
    # label: (what each round writes, compact every N rounds; 0 never)
    "reads, compacted": ("read", 40),
    "reads, never compacted": ("read", 0),
    "many small messages": ("small", 0),
    "a few huge results": ("huge", 0),
    "many compactions": ("read", 2),
}
"""The shapes resumed: `read` a call and its ~20 KB result a round; `small` a one-line prompt
and a one-line answer; `huge` a call and a 10 MB result."""


def _round(writer: SessionWriter, kind: str, turn: int) -> None:
    if kind == "small":
        writer.user([TextBlock(text=f"Question {turn}: what is {turn} squared?")])
        answer = TextBlock(text=f"{turn} squared is {turn * turn}.")
        writer.assistant(Message(role="assistant", content=(answer,)), Usage(output_tokens=9))
        return
    call = ToolUseBlock(id=f"toolu_{turn:08d}", name="Read", input={"file_path": f"f{turn}"})
    reply = Message(role="assistant", content=(TextBlock(text=f"Reading f{turn}."), call))
    writer.assistant(reply, Usage(input_tokens=5000, output_tokens=50))
    body = _CHUNK * 500 if kind == "huge" else _CHUNK
    writer.user([ToolResultBlock(tool_use_id=call.id, content=f"{turn}\n{body}")])


def write_long_session(
    directory: Path, cwd: Path, megabytes: int, *, compact_every: int, kind: str = "read"
) -> Path:
    """A session as a long run writes it: rounds of `kind` (see `SHAPES`) until the file holds
    `megabytes`; a compaction entry every `compact_every` rounds (0: never). Returns its path."""
    with SessionWriter.create(directory, "long", cwd=cwd, model="bench") as writer:
        writer.meta(model="bench", version="bench")
        writer.user([TextBlock(text="Read every file and summarise it.")])
        writer.title("Read every file")
        turn = 0
        while writer.path.stat().st_size < megabytes * 2**20:
            _round(writer, kind, turn)
            turn += 1
            if compact_every and turn % compact_every == 0:
                summary = f"Summary: f0 to f{turn} read. " + "s" * 2000
                writer.compacted([Message.user_text(summary)], 2)
        writer.assistant(Message(role="assistant", content=(TextBlock(text="Done."),)), None)
    return writer.path


def _resume_once(source: Path | None, kind: str, compact_every: int) -> dict[str, float]:
    from fake_env import fake_env
    from tether.testing import FakeModelServer, RecordedRequest, reply, text

    def answer(request: RecordedRequest) -> object:
        summary = "is about to be replaced by a summary" in request.last_user_text()
        return reply(text("Summary: files read." if summary else "resumed"))

    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        home, workspace = Path(tmp) / "home", Path(tmp) / "ws"
        workspace.mkdir()
        path = write_long_session(
            project_dir(home, workspace),
            workspace,
            RESUME_MB,
            compact_every=compact_every,
            kind=kind,
        )
        server.script(*[answer] * 10)  # type: ignore[arg-type]
        # The window the fake server enforces, so that tether knows it from the start.
        window = str(server.context_window)
        env = {**os.environ, **fake_env(server, home, TETHER_CONTEXT_WINDOW=window)}
        if source is not None:
            env["PYTHONPATH"] = str(source)
        argv = ["--cwd", str(workspace), "--permission-mode", "bypassPermissions"]
        command = [sys.executable, "-m", "tether", *argv, "-c", "-p", "go on"]
        started = time.perf_counter()
        with subprocess.Popen(
            command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        ) as child:
            _, status, usage = os.wait4(child.pid, 0)
            child.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - started
        return {
            "file_bytes": float(path.stat().st_size),
            "peak_rss_bytes": usage.ru_maxrss * 1024.0,  # Linux reports KiB
            "seconds": seconds,
            "ok": float(child.returncode == 0),
            "refused": float(len(server.rejections)),
        }


def resume_main() -> dict[str, dict[str, float]]:
    """Each shape (`BENCH_RESUME_SHAPES`: labels of `SHAPES`, comma-separated; default all)
    resumed with this tree, and with BENCH_BEFORE_SRC's when it is set."""
    before = os.environ.get("BENCH_BEFORE_SRC")
    chosen = os.environ.get("BENCH_RESUME_SHAPES")
    shapes = [s.strip() for s in chosen.split(",")] if chosen else list(SHAPES)
    figures: dict[str, dict[str, float]] = {}
    for shape in shapes:
        kind, every = SHAPES[shape]
        figures[f"{shape}, now"] = _resume_once(None, kind, every)
        if before:
            figures[f"{shape}, before"] = _resume_once(Path(before), kind, every)
    return figures


def resume_report(figures: dict[str, dict[str, float]]) -> None:
    print(f"resuming a {RESUME_MB} MB session file (tether -c -p, one process each)")
    for label, row in figures.items():
        outcome = "ok" if row["ok"] else "FAILED"
        print(
            f"  {label:32}{row['peak_rss_bytes'] / 2**20:8.0f} MiB peak RSS"
            f"{row['seconds']:8.1f} s   {outcome}, {int(row['refused'])} request(s) refused"
        )
    for shape in SHAPES:
        now, then = figures.get(f"{shape}, now"), figures.get(f"{shape}, before")
        if now and then:
            ratio = now["peak_rss_bytes"] / then["peak_rss_bytes"]
            print(f"  {shape}: peak RSS now / before = {ratio:.2f}")


if __name__ == "__main__":
    if sys.argv[1:] == ["resume"]:
        resume_report(resume_main())
    else:
        report(main())
