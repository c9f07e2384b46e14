"""What a headless run starts on threads before its first request: not the sandbox's walk for
set-id files (as root), which would compete with the start for the interpreter; it starts once
the first response begins. Checked at the moment the real command first connects to the model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tether.sandbox import probe
from tether.testing import FakeModelServer, reply, text

# Run as `python -c PROGRAM PORT ARGS...`: tether's command line, noting on stderr, as JSON,
# the names of the threads started before the process first connects to the model server at
# PORT (its first request), and all those started by its end.
THREADS_AT_FIRST_REQUEST = """\
import atexit, json, sys, threading
port = int(sys.argv[1])
sys.argv = ["tether", *sys.argv[2:]]
started, before = [], []
start = threading.Thread.start
def noted_start(thread):
    started.append(thread.name)
    start(thread)
threading.Thread.start = noted_start
def note(event, args):
    if event == "socket.connect" and not before and isinstance(args[1], tuple):
        if args[1][1] == port:
            before.append(list(started))
sys.addaudithook(note)
atexit.register(lambda: sys.stderr.write("THREADS " + json.dumps([*before, started]) + "\\n"))
from tether.main import console_main
console_main()
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="the set-id walk runs as root only")
@pytest.mark.skipif(not probe().works, reason="bubblewrap cannot run here")
def test_the_set_id_walk_waits_for_the_first_response(
    model_env: FakeModelServer, workspace: Path, home: Path
) -> None:
    model_env.script(reply(text("ok")))
    port = model_env.url.rsplit(":", 1)[1].split("/")[0]
    done = subprocess.run(
        [sys.executable, "-c", THREADS_AT_FIRST_REQUEST, port, "-p", "hi"],
        cwd=workspace,
        env={**os.environ, "HOME": str(home)},
        capture_output=True,
        text=True,
        check=True,
    )
    noted = [line for line in done.stderr.splitlines() if line.startswith("THREADS ")]
    assert len(noted) == 1, done.stderr
    before, started = json.loads(noted[0].removeprefix("THREADS "))
    walk = "tether-setid-scan"
    assert (walk in before, walk in started) == (False, True), (before, started)
