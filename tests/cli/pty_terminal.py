"""The real `tether` REPL on a pseudo-terminal: keys go in as a user types them, at a pace,
and what it draws is read back (escape sequences stripped) by a thread of its own."""

from __future__ import annotations

import contextlib
import os
import pty
import re
import signal
import struct
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from tests.cli.screen_model import screen_lines
from tether.testing import Reply

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\x1b[=>()][0-9A-Za-z]?|\r")

APP_DRAWS = "\x1b[?2004h"
"""Written by prompt_toolkit when an application starts reading the keyboard."""

WAIT_S = 30.0
"""How long a wait for the screen gives up after: a bound so nothing hangs, not a timing
assertion (a healthy run takes a few seconds)."""


class PtyRepl:
    """`tether` (the REPL) running in `workspace` on a terminal of its own."""

    def __init__(self, workspace: Path, env: dict[str, str], *args: str) -> None:
        program = str(Path(sys.executable).with_name("tether"))
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the REPL on the terminal
            os.chdir(workspace)
            os.execve(program, [program, *args], {**env, "TERM": "xterm-256color"})
        import fcntl
        import termios

        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self._raw = b""
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:  # the terminal closed with the process
                chunk = b""
            with self._changed:
                self._raw += chunk
                self._changed.notify_all()
            if not chunk:
                return

    @property
    def screen(self) -> str:
        """Everything drawn so far, without escape sequences."""
        with self._changed:
            return ANSI.sub("", self._raw.decode("utf-8", "replace"))

    @property
    def lines(self) -> list[str]:
        """The lines the terminal shows now (and those scrolled off above them), as a terminal
        would show them: redrawn cells replaced, erased ones gone."""
        return screen_lines(self.raw)

    def wait_shown(self, needle: str) -> str:
        """Until a line the terminal shows now holds `needle`; that line."""
        found: list[str] = []

        def shown(_screen: str) -> bool:
            found[:] = [line for line in self.lines if needle in line]
            return bool(found)

        self.wait_until(shown, f"a line showing {needle!r}")
        return found[-1]

    @property
    def raw(self) -> str:
        """Everything drawn so far, escape sequences and all."""
        with self._changed:
            return self._raw.decode("utf-8", "replace")

    def wait_for(self, needle: str, count: int = 1) -> None:
        """Until `needle` has been drawn `count` times (an AssertionError after `WAIT_S`)."""
        deadline = time.monotonic() + WAIT_S
        with self._changed:
            while self.screen.count(needle) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"never drew {needle!r}:\n{self.screen[-3000:]}"
                self._changed.wait(left)

    def wait_until(self, drawn: Callable[[str], bool], what: str) -> None:
        """Until the screen so far satisfies `drawn` (an AssertionError naming `what` after
        `WAIT_S`)."""
        deadline = time.monotonic() + WAIT_S
        with self._changed:
            while not drawn(self.screen):
                left = deadline - time.monotonic()
                assert left > 0, f"never drew {what}:\n{self.screen[-3000:]}"
                self._changed.wait(left)

    def wait_reading(self, after: str) -> None:
        """Until the message prompt reads the keyboard again after the last `after` drawn:
        prompt_toolkit turns bracketed paste on when it does. Keys sent before that meet a
        terminal in cooked mode, where the line discipline takes a Ctrl+D for itself."""

        def reading(_screen: str) -> bool:
            raw = self.raw
            return raw.rfind(APP_DRAWS) > raw.rfind(after) >= 0

        self.wait_until(reading, f"the prompt reading the keyboard after {after!r}")

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def type(self, text: str, every_s: float) -> None:
        """Type `text` one key at a time, as a person does."""
        for key in text:
            self.send(key)
            time.sleep(every_s)

    def wait_ended(self) -> int:
        """Until the REPL has ended and everything it wrote is read (its last line is written
        just before it exits: the reader thread may not have read it when `waitpid` answers);
        its exit code."""
        deadline = time.monotonic() + WAIT_S
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                break
            assert time.monotonic() < deadline, f"the REPL did not end:\n{self.screen[-2000:]}"
            time.sleep(0.05)
        self._reader.join(WAIT_S)  # the terminal's end: read once no process holds it
        assert not self._reader.is_alive(), f"the terminal stayed open:\n{self.screen[-2000:]}"
        return os.waitstatus_to_exitcode(status)

    def close(self) -> int | None:
        """End the REPL (Ctrl+D, then a kill if it is still there); its exit code."""
        with contextlib.suppress(OSError):
            self.send("\x04")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.05)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.fd)
        return None


def held(
    answer: Reply, release: threading.Event, reached: threading.Event | None = None
) -> Callable[[object], Reply]:
    """A model turn that answers only once the test says so (the turn runs until then);
    `reached` is set as the request arrives, so a test can act once the call is on the wire."""

    def turn(_request: object) -> Reply:
        if reached is not None:
            reached.set()
        release.wait(30)
        return answer

    return turn
