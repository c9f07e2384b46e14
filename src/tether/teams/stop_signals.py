"""The signals that cut `team up`'s start short as Ctrl+C does (SIGINT, SIGTERM, SIGHUP),
taken on the main thread only, and ignored while the start cut short is being ended."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Generator
from dataclasses import dataclass, field

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""What ends a start as Ctrl+C does: `timeout`, a CI's cancel and systemd send SIGTERM, a
closed terminal SIGHUP; each would otherwise end `up` with no word, its members starting."""


@dataclass
class StopSignals:
    owned: bool
    """Taken by this start: `team up` (its main thread); a lead session's Task tool starts
    from a worker thread, and its session has its own handling of those signals."""
    caught: list[int] = field(default_factory=list[int])

    @property
    def signum(self) -> int:
        """The signal that cut the start short (Ctrl+C's when none was caught here)."""
        return self.caught[0] if self.caught else signal.SIGINT

    @contextlib.contextmanager
    def ignored(self) -> Generator[None]:
        """A second signal must not cut the ending short (leaving a member starting)."""
        before = {s: signal.signal(s, signal.SIG_IGN) for s in STOP_SIGNALS} if self.owned else {}
        try:
            yield
        finally:
            for signum, handler in before.items():
                signal.signal(signum, handler)


@contextlib.contextmanager
def stops_interrupt() -> Generator[StopSignals]:
    """SIGTERM and SIGHUP raise `KeyboardInterrupt` as SIGINT does, within the block (when
    on the main thread), each one caught told by the `StopSignals` given."""
    stops = StopSignals(threading.current_thread() is threading.main_thread())

    def stop(signum: int, frame: object) -> None:
        stops.caught.append(signum)
        raise KeyboardInterrupt

    previous = {s: signal.signal(s, stop) for s in STOP_SIGNALS[1:]} if stops.owned else {}
    try:
        yield stops
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
