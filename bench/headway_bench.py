"""What the repeat guard's headway check costs after a call that names a big file.

After every call that succeeded, `Headway.made` looks at each file the call names (a Read's
`file_path`, the existing files in a Bash command) to see whether its content changed, in the
loop's thread. A file up to `HASHED_BYTES` (16 MiB) was hashed whole every time; now it is
hashed again only when `os.stat` says it changed (size, times, inode). The figure: the loop
thread's time per call of a Bash command naming one file of each size, the file unchanged
(what a model running its tests, or `wc -l` of a log, does call after call), the cache off
(every call hashes: the code before) and on, medians over the calls.

    .venv/bin/python bench/headway_bench.py  [BENCH_CALLS=40]
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from tether.core import headway
from tether.core.headway import Headway
from tether.core.repeated_calls import signature
from tether.protocol import ToolUseBlock

CALLS = int(os.environ.get("BENCH_CALLS", "40"))
SIZES = (64 << 10, 1 << 20, 16 << 20)


def _per_call(workspace: Path, name: str, cached: bool) -> float:
    racy = headway._RACY_NS  # pyright: ignore[reportPrivateUsage]
    # Off: a file always counts as just modified, so that it is hashed every time.
    headway._RACY_NS = racy if cached else 1 << 62  # pyright: ignore[reportPrivateUsage]
    try:
        seen = Headway()
        call = ToolUseBlock(id="t", name="Bash", input={"command": f"wc -c {name}"})
        key = signature(call)
        times: list[float] = []
        for _ in range(CALLS):
            start = time.thread_time()
            seen.made(call, f"123 {name}", key, str(workspace))
            times.append(time.thread_time() - start)
        return statistics.median(times[1:])  # the first call hashes either way
    finally:
        headway._RACY_NS = racy  # pyright: ignore[reportPrivateUsage]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp)
        print("| file | hashed every call | stat first | ratio |")
        print("| --- | --- | --- | --- |")
        for size in SIZES:
            name = f"f{size}.bin"
            (workspace / name).write_bytes(os.urandom(size))
            # Older than a clock tick (its status change too), as a file read again is.
            time.sleep(headway._RACY_NS / 1e9 + 0.1)  # pyright: ignore[reportPrivateUsage]
            before = _per_call(workspace, name, cached=False)
            after = _per_call(workspace, name, cached=True)
            print(
                f"| {size >> 10} KiB | {before * 1e3:.3f} ms | {after * 1e3:.3f} ms "
                f"| {before / after:.0f}x |"
            )


if __name__ == "__main__":
    main()
