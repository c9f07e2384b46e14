"""`tether -p hi` to its first request, in instructions: a figure the machine's load does not move.

    .venv/bin/python bench/startup_instructions.py [SRC]

Wall-clock start-up figures on a shared machine move by tens of percent with the load; the
number of instructions executed does not (within about half a percent). This runs `tether -p
hi` under valgrind's callgrind against the fake server, from compiled bytecode, and ends the
process the moment it connects to the server (its first request): the count is everything
before, both threads (the HTTP preload's trust store included). SRC, another checkout's `src`
(the main branch's, say), is measured instead of this one: compare two trees with the same
interpreter and libraries. A run takes one to two minutes. Needs valgrind (skipped, with a
note, when absent).
"""

from __future__ import annotations

import compileall
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tether.testing import FakeModelServer, reply, text

# Run as `python -c CHILD PORT ARGS...`: tether's command line, ended at its first connection
# to PORT (os._exit: nothing after it is counted).
CHILD = """\
import os, sys
port = int(sys.argv[1])
sys.argv = ["tether", *sys.argv[2:]]
def first_connection(event, args):
    if event == "socket.connect" and isinstance(args[1], tuple) and args[1][1] == port:
        os._exit(0)
sys.addaudithook(first_connection)
from tether.main import console_main
console_main()
"""


def instructions(src: Path | None = None) -> int | None:
    """Instructions `tether -p hi` executes before its first request; None without valgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    tree = src or Path(__file__).parents[1] / "src"
    compileall.compile_dir(tree / "tether", quiet=1)
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        server.expect_rejections = True
        server.script(reply(text("ok")))
        port = server.url.rsplit(":", 1)[1].split("/")[0]
        home, workspace = Path(tmp) / "home", Path(tmp) / "workspace"
        home.mkdir()
        workspace.mkdir()
        env = {
            **os.environ,
            "PYTHONPATH": str(tree),
            "TETHER_HOME": str(home),
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "bench",
        }
        env.pop("TETHER_MODEL", None)
        done = subprocess.run(
            [
                *(valgrind, "--tool=callgrind", f"--callgrind-out-file={tmp}/callgrind.out"),
                *(sys.executable, "-c", CHILD, port, "-p", "hi"),
            ],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
        )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind gave no count: {done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    src = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else None
    count = instructions(src)
    if count is None:
        print("instructions to the first request: skipped (valgrind is not installed)")
        return
    print(f"instructions to the first request: {count / 1e6:,.0f} M ({src or 'this tree'})")


if __name__ == "__main__":
    main()
