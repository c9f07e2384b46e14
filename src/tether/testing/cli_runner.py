"""Running the `tether` command in tests: in-process (fast) or as a real subprocess."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class CliResult:
    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        """stdout as one JSON document (`--output-format json`)."""
        return json.loads(self.stdout)

    def json_lines(self) -> list[Any]:
        """stdout as JSON lines (`--output-format stream-json`)."""
        return [json.loads(line) for line in self.stdout.splitlines() if line.strip()]


_run_lock = threading.Lock()


def run_cli(argv: Sequence[str], *, stdin: str = "") -> CliResult:
    """Run `tether ARGV` in this process, on a thread of its own (it runs its own event loop),
    with stdin, stdout and stderr replaced. Environment and cwd are the caller's."""
    from tether.cli.app import main

    out, err = io.StringIO(), io.StringIO()
    box: list[int] = []
    failure: list[BaseException] = []

    def target() -> None:
        try:
            box.append(main(list(argv)))
        except SystemExit as e:  # argparse exits for --help and usage errors
            box.append(e.code if isinstance(e.code, int) else (0 if e.code is None else 2))
        except BaseException as e:
            failure.append(e)

    with _run_lock, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        saved_stdin = sys.stdin
        sys.stdin = _PipedStdin(stdin)
        try:
            thread = threading.Thread(target=target, name="tether-cli")
            thread.start()
            thread.join()
        finally:
            sys.stdin = saved_stdin
    if failure:
        raise failure[0]
    return CliResult(box[0], out.getvalue(), err.getvalue())


def run_cli_process(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    stdin: str = "",
    timeout_s: float = 120,
) -> CliResult:
    """Run `python -m tether ARGV` as a subprocess: the real start-up, signals and exit codes."""
    proc = subprocess.run(
        [sys.executable, "-m", "tether", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        env=dict(os.environ if env is None else env),
        cwd=cwd,
        timeout=timeout_s,
        check=False,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


class _PipedStdin(io.StringIO):
    def isatty(self) -> bool:
        return False
