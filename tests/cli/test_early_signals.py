"""SIGTERM and SIGHUP that land while a session starts, before a front end takes them over
(seen 3 s into `--resume ID --fork-session`), end tether with one line and status 128+N, as
Ctrl+C then does: they ended it by the default action, with no word. Real processes, really
signalled, at the moment the start-up's handlers are in place (the process signals itself
there, so that the moment is certain)."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

EARLY = """
import os, signal, sys, time
import tether.main as main
main._take_stop_signals()
os.kill(os.getpid(), signal.{name})
time.sleep(30)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_stop_signal_early_in_start_up_ends_with_one_line(sig: signal.Signals) -> None:
    done = subprocess.run(
        [sys.executable, "-c", EARLY.format(name=sig.name)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    said = "interrupted" if sig == signal.SIGINT else f"stopped by {sig.name}"
    assert (done.returncode, done.stderr) == (128 + sig, f"tether: {said}\n")
