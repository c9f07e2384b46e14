"""SIGTERM and SIGHUP in the REPL (`kill`, the terminal closed): it ends as a `-p` run does.
The running turn stops as Ctrl+C stops it (tools stopped, every call answered, the session
file complete), the prompt is left, the session is closed (background commands stopped, its
file synced), one line says why, and the exit status is 128+N. The line is said only where a
terminal is still there to read it: after a hangup it may be gone."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import stat
from collections.abc import Callable, Generator

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def stop_on_signals(stop: Callable[[int], None]) -> Generator[None]:
    """While the block runs, SIGTERM and SIGHUP call `stop(signum)` on the event loop."""
    loop = asyncio.get_running_loop()
    installed: list[int] = []
    for signum in STOP_SIGNALS:
        # Outside the main thread (tests run the REPL in-process) signals stay as they are.
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stop, signum)
            installed.append(signum)
    try:
        yield
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


def say_stopped(signum: int) -> int:
    """Say that the REPL was stopped by `signum`, on standard error if it can still be
    written; the exit status (128+N)."""
    with contextlib.suppress(OSError):
        os.write(2, f"tether: stopped by {signal.Signals(signum).name}\n".encode())
    leave_hung_up_terminal()
    return 128 + signum


def leave_hung_up_terminal() -> None:
    """Point the standard descriptors that are a terminal which hung up at /dev/null: what is
    drawn, flushed or restored there from now on goes nowhere, instead of failing (EIO) in
    the middle of stopping the turn and saving the session."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        if _hung_up(fd):
            os.dup2(null, fd)
    os.close(null)


def _hung_up(fd: int) -> bool:
    """Whether `fd` is a terminal that hung up: a character device that no longer answers
    as a terminal does."""
    try:
        return stat.S_ISCHR(os.fstat(fd).st_mode) and not os.isatty(fd)
    except OSError:
        return False
