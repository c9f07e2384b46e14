"""How a child's end is said (`tether.processes.exit_said`): a death by a signal as the
signal, an exit as its code, whatever its number (exit 130 by itself was said "ended by
SIGINT", and 143 "ended by SIGTERM"); and a process of ours stopped by a signal it handled
ends by it (`end_by_signal`), so that its parent sees the signal."""

from __future__ import annotations

import subprocess
import sys

from tether.processes import exit_said


def ended(script: str, *, terminate: bool) -> int:
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    if terminate:
        assert child.stdout.readline() == "ready\n"
        child.terminate()
    code = child.wait()
    child.stdout.close()
    return code


def test_a_signal_s_death_is_said_as_the_signal_and_an_exit_as_its_code() -> None:
    ready = "print('ready', flush=True)\nsignal.pause()\n"  # its handler set before
    codes = [
        ended("import signal\n" + ready, terminate=True),
        ended(
            "import signal, sys\nsignal.signal(signal.SIGTERM, lambda *_: sys.exit(143))\n" + ready,
            terminate=True,
        ),
        ended(
            "import signal\n"
            "from tether.processes import end_by_signal\n"
            "signal.signal(signal.SIGTERM, lambda *_: end_by_signal(signal.SIGTERM))\n" + ready,
            terminate=True,
        ),
        ended("raise SystemExit(130)", terminate=False),
        ended("raise SystemExit(2)", terminate=False),
    ]
    assert [(code, exit_said(code)) for code in (*codes, -9, 0)] == [
        (-15, "ended by SIGTERM"),
        (143, "exit 143"),
        (-15, "ended by SIGTERM"),
        (130, "exit 130"),
        (2, "exit 2"),
        (-9, "ended by SIGKILL"),
        (0, "exit 0"),
    ]
