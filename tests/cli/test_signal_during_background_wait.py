"""A stop signal (SIGTERM, Ctrl+C, SIGHUP) while `-p` or stream-json waits, after the turn, for a
background command stops tether at once, as at any other moment: the command is stopped (by its
id) before it can do what it was about to, and the signal is said. Before, the wait went on until
the command ended by itself (its side effects done), and only then was the signal honoured.
Real tether processes, really signalled, on both wires."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.test_killed_runs import _alive, _gone, _kill_survivors, _wait_for_pid
from tether.testing import FakeModelServer, reply, text, tool_use

SLOW = "echo $$ > bg.pid; exec sh -c 'sleep 600; echo bgdone > done.txt'"
"""A background command that would write `done.txt` ten minutes on (its pid is the host's:
the sandbox is off, so the test can check it by that pid)."""


@pytest.fixture
def unsandboxed(trusted_workspace: Path) -> Path:
    (trusted_workspace / ".tether").mkdir()
    (trusted_workspace / ".tether" / "settings.json").write_text('{"sandbox": {"enabled": false}}')
    return trusted_workspace


def _start(workspace: Path, wire: str, *argv: str, stdin: str = "") -> subprocess.Popen[str]:
    model = ["--model", "openai/gpt-4.1"] if wire == "openai" else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "tether", "--cwd", str(workspace), *model, *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None
    proc.stdin.write(stdin)
    proc.stdin.close()  # the input ends: tether then waits for the background command
    proc.stdin = None
    return proc


def _script(fake_model: FakeModelServer) -> None:
    started = tool_use("Bash", command=SLOW, run_in_background=True, description="slow")
    fake_model.script(reply(started), reply(text("done")))


def _stopped_at_once(
    fake_model: FakeModelServer,
    proc: subprocess.Popen[str],
    workspace: Path,
    signum: int,
    *,
    streaming: bool = False,
) -> str:
    """Signal `proc` once its turn has answered and it waits for the command; its stderr."""
    command = _wait_for_pid(workspace / "bg.pid", proc)
    try:
        if streaming:  # its result line: the turn is over, tether waits for the command
            while '"type": "result"' not in (line := proc.stdout.readline() if proc.stdout else ""):
                assert line, proc.communicate()
        while len(fake_model.requests) < 2:  # bounded: the turn's answer is asked for next
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.01)
        proc.send_signal(signum)
        # Bounded only so that the failure before the fix (a ten-minute wait) ends the test.
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 128 + signum, err
        assert _gone(command), "the background command was left running"
        assert not (workspace / "done.txt").exists()
        return err
    finally:
        _kill_survivors([command] if _alive(command) else [])


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
@pytest.mark.parametrize(
    ("signum", "said"),
    [
        (signal.SIGTERM, "tether: stopped by SIGTERM"),
        (signal.SIGINT, "tether: interrupted"),
        (signal.SIGHUP, "tether: stopped by SIGHUP"),
    ],
)
def test_a_signal_while_print_mode_waits_for_a_background_command_stops_it_at_once(
    fake_model: FakeModelServer, unsandboxed: Path, wire: str, signum: int, said: str
) -> None:
    _script(fake_model)
    proc = _start(unsandboxed, wire, "-p", "start it", "--permission-mode", "bypassPermissions")
    err = _stopped_at_once(fake_model, proc, unsandboxed, signum)
    assert said in err.splitlines()
    assert len(fake_model.requests) == 2  # no turn woken after the signal


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_a_signal_while_stream_json_waits_for_a_background_command_stops_it_at_once(
    fake_model: FakeModelServer, unsandboxed: Path, wire: str
) -> None:
    _script(fake_model)
    message = {"type": "user", "message": {"role": "user", "content": "start it"}}
    proc = _start(
        unsandboxed,
        wire,
        *("-p", "--input-format", "stream-json", "--output-format", "stream-json"),
        *("--verbose", "--permission-mode", "bypassPermissions"),
        stdin=json.dumps(message) + "\n",
    )
    _stopped_at_once(fake_model, proc, unsandboxed, signal.SIGTERM, streaming=True)
    assert len(fake_model.requests) == 2
