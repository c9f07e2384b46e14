"""How a child's end is said (`tether.processes.exit_said`): one wording for one end."""

from __future__ import annotations

import subprocess
import sys

from tether.processes import exit_said


def test_one_end_is_said_one_way_whether_the_signal_killed_the_child_or_its_handler_exited() -> (
    None
):
    """SIGTERM to a child with no handler (Popen: -15) and to one whose handler exits as a
    shell says that death (143): both "ended by SIGTERM" (said "-15" and "143" before)."""
    handled = (
        "import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))\n"
        "print('ready', flush=True)\n"
        "signal.pause()\n"
    )
    plain = "import signal\nprint('ready', flush=True)\nsignal.pause()\n"
    codes: list[int] = []
    for script in (plain, handled):
        child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
        child.terminate()
        codes.append(child.wait())
        child.stdout.close()
    exited = subprocess.run([sys.executable, "-c", "raise SystemExit(2)"], check=False)
    assert codes == [-15, 143]
    assert [exit_said(code) for code in (*codes, exited.returncode, -9, 0)] == [
        "ended by SIGTERM",
        "ended by SIGTERM",
        "exit 2",
        "ended by SIGKILL",
        "exit 0",
    ]
