"""How long `tether -c -p` takes when the session resumed has read many files: the files the
transcript shows were read are checked when an Edit or Write needs one, not all at start-up.

    PYTHONPATH=src .venv/bin/python bench/resume_reads_bench.py [--files 200] [--kib 1024]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fake_env import fake_env
from tether.testing import FakeModelServer, reply, text, tool_use

_PER_REPLY = 100


def _tether(env: dict[str, str], cwd: Path, *argv: str) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "tether", "--permission-mode", "bypassPermissions", *argv],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--kib", type=int, default=1024)
    parser.add_argument("--runs", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch, FakeModelServer() as server:
        home, workspace = Path(scratch, "home"), Path(scratch, "ws")
        workspace.mkdir(parents=True)
        # One long line a file: Read shows its first 2,000 characters, so the conversation
        # stays small while the files are not.
        names = [f"f{i}.txt" for i in range(options.files)]
        for name in names:
            (workspace / name).write_bytes(b"x" * (options.kib * 1024 - 1) + b"\n")
        env = {**os.environ, **fake_env(server, home, TETHER_CONTEXT_WINDOW="10000000")}
        batches = [names[i : i + _PER_REPLY] for i in range(0, len(names), _PER_REPLY)]
        server.script(
            *(reply(*(tool_use("Read", file_path=n) for n in batch)) for batch in batches),
            reply(text("read")),
        )
        _tether(env, workspace, "-p", "read them")
        times: list[float] = []
        for _ in range(options.runs):
            server.script(reply(text("hi")))
            times.append(_tether(env, workspace, "-c", "-p", "hi"))
        print(
            f"resume after {options.files} reads of {options.kib} KiB: "
            f"median {statistics.median(times):.2f} s, min {min(times):.2f} s"
        )


if __name__ == "__main__":
    main()
