"""The reader of a session's output goes away (`| head -c 100`): the session stops and says
why on stderr, where it exited 1 without a word; a subcommand's output cut short by its
reader (`tether sessions list | head -1`) stays quiet, as Unix tools are."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tether.main import READER_GONE
from tether.testing import FakeModelServer, reply, text, tool_use


def test_a_stream_json_session_whose_reader_left_says_so(
    model_env: FakeModelServer, workspace: Path
) -> None:
    model_env.script(
        reply(text("working " * 50), tool_use("Bash", command="echo ran > ran.txt")),
        text("done " * 50),
    )
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "tether", "--cwd", str(workspace), "-p", "go"),
            *("--output-format", "stream-json", "--verbose"),
            *("--permission-mode", "bypassPermissions"),
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(os.environ),
    )
    assert process.stdout is not None
    assert process.stdout.read(100)
    process.stdout.close()  # as `head -c 100` does once it has its bytes
    _, err = process.communicate(timeout=120)
    assert process.returncode == 1
    assert err.decode().count(READER_GONE.strip()) == 1, err
    assert b"Traceback" not in err
