"""What the repeat guard's headway check costs after a call that names a big file.

After every call that succeeded, `Headway.made` looks at each file the call names (a Read's
`file_path`, the existing files in a Bash command) to see whether its content changed, in the
loop's thread. A file up to `HASHED_BYTES` (16 MiB) was hashed whole every time; now it is
hashed again only when `os.stat` says it changed (size, times, inode). The figure: the loop
thread's time per call of a Bash command naming one file of each size, the file unchanged
(what a model running its tests, or `wc -l` of a log, does call after call), the cache off
(every call hashes: the code before) and on, medians over the calls.

Second table: after a compaction the repeat guard checks each call twice, against what the
turn showed since the compaction and against the whole turn (`RepeatedFailures.saw`); the
loop thread's time per reply before any compaction and after one, side by side, for a reply
whose call shows a long output (a test run's, or a page of a file Read), new each time.

    .venv/bin/python bench/headway_bench.py  [BENCH_CALLS=40]
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from tether.core import headway_file_states
from tether.core.headway import Headway
from tether.core.headway_look import CallLook
from tether.core.repeated_calls import RepeatedFailures, signature
from tether.protocol import ToolResultBlock, ToolUseBlock

CALLS = int(os.environ.get("BENCH_CALLS", "40"))
SIZES = (64 << 10, 1 << 20, 16 << 20)


def _per_call(workspace: Path, name: str, cached: bool) -> float:
    racy = headway_file_states._RACY_NS  # pyright: ignore[reportPrivateUsage]
    # Off: a file always counts as just modified, so that it is hashed every time.
    headway_file_states._RACY_NS = racy if cached else 1 << 62  # pyright: ignore[reportPrivateUsage]
    try:
        seen = Headway()
        call = ToolUseBlock(id="t", name="Bash", input={"command": f"wc -c {name}"})
        key = signature(call)
        times: list[float] = []
        for _ in range(CALLS):
            start = time.thread_time()
            seen.made(CallLook(call, f"123 {name}", key, str(workspace)))
            times.append(time.thread_time() - start)
        return statistics.median(times[1:])  # the first call hashes either way
    finally:
        headway_file_states._RACY_NS = racy  # pyright: ignore[reportPrivateUsage]


def _output(kind: str, n: int, workspace: Path) -> tuple[ToolUseBlock, str]:
    """The `n`th call of `kind` and what it showed: new each time, as a loop's are not."""
    if kind == "Read":
        path = str(workspace / "big.py")
        start = n * 400
        page = "".join(
            f"{k + 1:6}\tvalue_{k} = compute({k}, 'x{n}')\n" for k in range(start, start + 400)
        )
        return ToolUseBlock(
            id=f"r{n}", name="Read", input={"file_path": path, "offset": start}
        ), page
    lines = [f"tests/test_{k}.py::test_case_{k} PASSED [{k % 100:3}%] {n}" for k in range(400)]
    call = ToolUseBlock(id=f"b{n}", name="Bash", input={"command": f"pytest -q -k case{n} big.py"})
    return call, "\n".join(lines)


def _per_reply(workspace: Path, kind: str, compactions: int) -> float:
    guard = RepeatedFailures()
    times: list[float] = []
    for n in range(CALLS):
        call, content = _output(kind, n, workspace)
        result = ToolResultBlock(tool_use_id=call.id, content=content)
        start = time.thread_time()
        guard.saw([call], [result], cwd=workspace, compactions=compactions)
        times.append(time.thread_time() - start)
    return statistics.median(times[1:])


def compaction_table(workspace: Path) -> None:
    (workspace / "big.py").write_text("x = 1\n" * 20000)
    print("| reply | before a compaction | after one | ratio |")
    print("| --- | --- | --- | --- |")
    for kind in ("Bash", "Read"):
        before = _per_reply(workspace, kind, 0)
        after = _per_reply(workspace, kind, 1)
        print(f"| {kind} | {before * 1e3:.3f} ms | {after * 1e3:.3f} ms | {after / before:.2f}x |")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        compaction_table(Path(tmp))
        print()
        workspace = Path(tmp)
        print("| file | hashed every call | stat first | ratio |")
        print("| --- | --- | --- | --- |")
        for size in SIZES:
            name = f"f{size}.bin"
            (workspace / name).write_bytes(os.urandom(size))
            # Older than a clock tick (its status change too), as a file read again is.
            time.sleep(headway_file_states._RACY_NS / 1e9 + 0.1)  # pyright: ignore[reportPrivateUsage]
            before = _per_call(workspace, name, cached=False)
            after = _per_call(workspace, name, cached=True)
            print(
                f"| {size >> 10} KiB | {before * 1e3:.3f} ms | {after * 1e3:.3f} ms "
                f"| {before / after:.0f}x |"
            )


if __name__ == "__main__":
    main()
