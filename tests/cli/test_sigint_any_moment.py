"""Ctrl+C at any moment of a real `tether` process ends it with `tether: interrupted` and status
130, nothing else: while its modules load (before any front end handles the signal), during a
turn, and around its exit.

Loading is caught deterministically: Python reports each import on stderr as it finishes
(`-X importtime`), into a pipe made small, which the test does not read until it has sent the
signal: the process is then blocked in the middle of its imports."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text

F_SETPIPE_SZ = 1031  # Linux
PIPE_BYTES = 8192  # tether's own modules start loading after about 2 KiB of import lines
LONGEST_LINE = 512  # a line that does not fit whole waits: the pipe is full short of this


def _unread(fd: int) -> int:
    available = bytearray(4)
    fcntl.ioctl(fd, termios.FIONREAD, available)
    return int.from_bytes(available, sys.byteorder)


def test_ctrl_c_while_modules_load_is_one_line(model_env: FakeModelServer, workspace: Path) -> None:
    model_env.script(reply(text("never asked")))
    read_end, write_end = os.pipe()
    fcntl.fcntl(read_end, F_SETPIPE_SZ, PIPE_BYTES)
    argv = [sys.executable, "-X", "importtime", "-m", "tether", "--cwd", str(workspace)]
    with subprocess.Popen(
        [*argv, "-p", "hello"],
        stdout=subprocess.PIPE,
        stderr=write_end,
        text=True,
    ) as tether:
        os.close(write_end)
        try:
            while _unread(read_end) < PIPE_BYTES - LONGEST_LINE:  # then it waits to write more
                assert tether.poll() is None, "tether ended before its imports filled the pipe"
                time.sleep(0.01)
            tether.send_signal(signal.SIGINT)
            with os.fdopen(read_end, "rb") as errors:
                stderr = errors.read().decode()
            out, _ = tether.communicate(timeout=60)
        finally:
            if tether.poll() is None:
                tether.kill()
    said = [line for line in stderr.splitlines() if not line.startswith("import time:")]
    assert (tether.returncode, out, said) == (130, "", ["tether: interrupted"]), stderr[-3000:]
    assert model_env.requests == []


@pytest.mark.parametrize("delay_s", [0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.6, 1.0, 2.0, 4.0])
def test_ctrl_c_at_other_moments_is_one_line_too(
    model_env: FakeModelServer, workspace: Path, delay_s: float
) -> None:
    """Wherever the signal lands (loading on several threads, building the session, waiting
    for the model, or after the answer while the process exits), one line at most, no
    traceback, and no hang: a KeyboardInterrupt raised in the middle of an import left one
    of Python's import locks held, and the process waited on it for ever (4 runs in 60).

    The delay counts from tether's own code: a signal in the interpreter's start (site, .pth
    files: tens of milliseconds on a loaded machine) meets Python's handling, not tether's."""
    model_env.script(reply(text("the answer"), delay_s=1.0))
    argv = [sys.executable, "-X", "importtime", "-m", "tether", "--cwd", str(workspace)]
    with subprocess.Popen(
        [*argv, "-p", "hello"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as tether:
        assert tether.stderr is not None
        lines: list[str] = []
        for line in tether.stderr:  # until its first module past the entry point has loaded
            lines.append(line)
            if line.rstrip().endswith("| tether.cli"):
                break
        time.sleep(delay_s)
        tether.send_signal(signal.SIGINT)
        out, err = tether.communicate(timeout=60)
    said = "".join(
        line for line in [*lines, *err.splitlines(True)] if not line.startswith("import time:")
    )
    outcome = (tether.returncode, said)
    expected = [(130, "tether: interrupted\n")]  # one wording, before or during the turn
    if out == "the answer\n":  # it had finished
        expected.append((0, ""))
    assert outcome in expected, (out, said)


def test_ctrl_c_after_the_answer_while_the_session_closes_is_told(
    model_env: FakeModelServer, workspace: Path
) -> None:
    """A signal that lands after the turn has ended (here: while the SessionEnd hook runs, as the
    session closes) leaves the answer printed and is told in one line with status 130: it was
    taken for the turn, which had already finished, and nothing said so (status 130, no line)."""
    model_env.script(reply(text("the answer")))
    hook = {"type": "command", "command": 'kill -INT "$PPID"; sleep 1'}
    settings = {"hooks": {"SessionEnd": [{"hooks": [hook]}]}}
    (Path(os.environ["TETHER_HOME"]) / "settings.json").write_text(json.dumps(settings))
    done = subprocess.run(
        [sys.executable, "-m", "tether", "--cwd", str(workspace), "-p", "hello"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (
        130,
        "the answer\n",
        "tether: interrupted\n",
    )
