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

Third table: before a reply's calls are judged, the working tree is looked at for the files
they made (`headway_made_files`): a `stat` per directory, and a listing of each one changed.
The loop thread's time per look over a repository of `REPO_FILES` files, unchanged and with one
file made since the last look, and the first look that lists it all.

    .venv/bin/python bench/headway_bench.py  [BENCH_CALLS=40]
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from tether.core import headway_file_states
from tether.core.call_signature import signature
from tether.core.headway import Headway
from tether.core.headway_look import CallLook
from tether.core.headway_made_files import MadeFiles
from tether.core.repeated_calls import RepeatedFailures
from tether.protocol import ToolResultBlock, ToolUseBlock

CALLS = int(os.environ.get("BENCH_CALLS", "40"))
SIZES = (64 << 10, 1 << 20, 16 << 20)
REPO_FILES = 5000
"""Files of the repository the made-files look walks: 10 per directory, 500 directories."""


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


def _repository(root: Path) -> int:
    """A source tree of `REPO_FILES` files, 10 a directory, nested as packages are; its
    directories counted."""
    for n in range(REPO_FILES // 10):
        folder = root / f"pkg{n // 100}" / f"sub{n // 10 % 10}" / f"mod{n % 10}"
        folder.mkdir(parents=True)
        for k in range(10):
            (folder / f"file_{k}.py").write_text(f"value = {k}\n")
    return 1 + sum(1 for path in root.rglob("*") if path.is_dir())


def made_files_table(root: Path) -> None:
    dirs = _repository(root)
    made = MadeFiles()
    start = time.thread_time()
    made.new_files(str(root))
    first = time.thread_time() - start
    steady: list[float] = []
    one_made: list[float] = []
    for n in range(CALLS):
        start = time.thread_time()
        made.new_files(str(root))
        steady.append(time.thread_time() - start)
        (root / "pkg3" / "sub4" / "mod5" / f"unit_{n}.o").write_text(f"int u{n};\n")
        start = time.thread_time()
        found = made.new_files(str(root))
        one_made.append(time.thread_time() - start)
        assert len(found) == 1, found
    print(f"| look over {REPO_FILES} files in {dirs} directories | per call |")
    print("| --- | --- |")
    print(f"| first look (lists every directory) | {first * 1e3:.3f} ms |")
    print(f"| nothing made since | {statistics.median(steady) * 1e3:.3f} ms |")
    print(f"| one file made since | {statistics.median(one_made) * 1e3:.3f} ms |")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        made_files_table(Path(tmp))
        print()
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
