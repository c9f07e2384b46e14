"""A reader that goes away (`tether sessions list | head -1`): every subcommand that prints
ends quietly, with no traceback, whatever it was printing; a session's run says once why it
ended. Run as real processes whose standard
output is a pipe closed before they start, so that their first write meets EPIPE."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tether.main import READER_GONE
from tether.testing import FakeModelServer, reply, text


def _run_into_closed_pipe(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            [sys.executable, "-m", "tether", *args],
            stdin=subprocess.DEVNULL,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=cwd,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["sessions", "list"],
        ["sessions", "list", "--json"],
        ["sandbox", "check"],
        ["hooks", "check"],
        ["mcp", "list"],
        ["trust", "--show"],
        ["permissions", "check", "--tool", "Bash", "--input", '{"command": "ls"}'],
    ],
)
def test_a_subcommand_whose_reader_left_ends_quietly(
    model_env: FakeModelServer, workspace: Path, args: list[str]
) -> None:
    run = _run_into_closed_pipe(args, workspace)
    assert (run.returncode, run.stderr) == (1, "")


@pytest.mark.parametrize("output_format", ["text", "json", "stream-json"])
def test_a_headless_run_whose_reader_left_says_so_once(
    model_env: FakeModelServer, workspace: Path, output_format: str
) -> None:
    model_env.script(reply(text("a long answer\n" * 1000)))
    run = _run_into_closed_pipe(
        ["-p", "say it", "--output-format", output_format, "--cwd", str(workspace)], workspace
    )
    # Said, unlike a subcommand's: stream-json's turn stops where its reader left (before
    # its tools), and ended without a word.
    assert (run.returncode, run.stderr) == (1, READER_GONE)
