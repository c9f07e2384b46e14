"""SIGTERM and SIGHUP (`kill`, the terminal closed) in the REPL, on a real terminal: it ends
as `-p` does, at the prompt or in the middle of a turn: the turn stops, its calls answered,
the session saved and valid, the commands it started ended, one line, status 128+N."""

from __future__ import annotations

import itertools
import os
import signal
import time
from pathlib import Path

import pytest

from tests.cli.pty_terminal import WAIT_S, PtyRepl
from tether.core.resume import restore
from tether.store import list_sessions, load_session
from tether.testing import FakeModelServer, reply, text, tool_use


@pytest.fixture
def mark() -> str:
    """The length of the `sleep`s the turn starts: the processes to look for afterwards. The
    test's own (its pid and a counter): another test running this file at the same time (an
    xdist worker beside it) must not be counted, nor its sleeps be taken for ones left here."""
    return f"2711.{os.getpid()}{next(_MARKS)}"


_MARKS = itertools.count(1)


def _sleepers(mark: str) -> list[int]:
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if cmdline == f"sleep\0{mark}\0".encode():
                found.append(int(entry.name))
    return found


def _until_sleeping(mark: str, count: int) -> None:
    deadline = time.monotonic() + WAIT_S
    while len(_sleepers(mark)) < count:
        assert time.monotonic() < deadline, f"{count} commands never started"
        time.sleep(0.05)


@pytest.mark.timeout(90)
@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM], ids=["SIGHUP", "SIGTERM"])
@pytest.mark.parametrize("when", ["at the prompt", "during a tool"])
def test_a_signal_ends_the_repl_with_its_session_saved_and_its_commands_ended(
    model_env: FakeModelServer, workspace: Path, home: Path, signum: int, when: str, mark: str
) -> None:
    model_env.script(
        reply(tool_use("Bash", command=f"sleep {mark}", run_in_background=True)),
        reply(tool_use("Bash", command=f"sleep {mark} & wait")),
        reply(text("never")),
    )
    repl = PtyRepl(
        workspace, {**os.environ, "HOME": str(home)}, "--permission-mode", "bypassPermissions"
    )
    try:
        repl.wait_for("> ")
        if when == "during a tool":
            repl.send("go\r")
            _until_sleeping(mark, 2)
        os.kill(repl.pid, signum)
        status = repl.wait_ended()
    except BaseException:
        repl.close()
        raise
    os.close(repl.fd)
    name = signal.Signals(signum).name
    assert status == 128 + signum, repl.screen[-2000:]
    assert repl.screen.count(f"tether: stopped by {name}") == 1, repl.screen[-2000:]
    assert "Traceback" not in repl.screen
    assert _sleepers(mark) == []  # the command running, and the one in the background, ended
    sessions = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    if when == "at the prompt":
        assert sessions == []
        return
    [info] = sessions
    restored = restore(load_session(info.path))
    assert restored.damage == ()
    assert [m.role for m in restored.history.messages] == ["user", "assistant"] * 2 + ["user"]
    assert len(model_env.requests) == 2  # the model was not asked again after the signal


@pytest.mark.timeout(90)
def test_a_terminal_that_closes_mid_turn_ends_the_repl_as_sighup_does(
    model_env: FakeModelServer, workspace: Path, home: Path, mark: str
) -> None:
    """The terminal itself goes away (its window closed): the kernel's SIGHUP, then every
    write to the terminal fails. The turn still stops, the session is saved and valid, the
    commands end, and the status is 129 (writing the turn's end failed, and it was 120)."""
    model_env.script(
        reply(tool_use("Bash", command=f"sleep {mark}", run_in_background=True)),
        reply(tool_use("Bash", command=f"sleep {mark} & wait")),
        reply(text("never")),
    )
    repl = PtyRepl(
        workspace, {**os.environ, "HOME": str(home)}, "--permission-mode", "bypassPermissions"
    )
    try:
        repl.wait_for("> ")
        repl.send("go\r")
        _until_sleeping(mark, 2)
    except BaseException:
        repl.close()
        raise
    os.close(repl.fd)  # the terminal hangs up
    assert repl.wait_ended() == 128 + signal.SIGHUP
    assert _sleepers(mark) == []
    [info] = list_sessions(Path(os.environ["TETHER_HOME"]), workspace)
    restored = restore(load_session(info.path))
    assert restored.damage == ()
    assert [m.role for m in restored.history.messages] == ["user", "assistant"] * 2 + ["user"]
