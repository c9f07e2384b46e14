"""Where `tether -p hi`'s CPU time goes before its first request, by kind of work rather than by
step: making classes (dataclasses), compiling regular expressions, and the rest (module code,
reading files, the session's build). Pydantic is not imported before the first request (the
protocol's records are tether's own classes; tools' input models load at their first call),
so its models and validators are not counted here: importing it here would add its cost.

    .venv/bin/python bench/startup_costs.py            (BENCH_RUNS=N, 5 by default)
    .venv/bin/python bench/startup_costs.py --stream-json

Each run starts tether's command line in a child process with those functions wrapped, and
ends it the moment it connects to the fake server (its first request). The CPU time of each
kind is the calling thread's own (`time.thread_time`), so that the HTTP preload's thread,
which runs meanwhile, is not counted in what the main thread waits for; the totals are the
process's (both threads) and the main thread's. CPU time is less moved by the machine's load
than wall-clock time, but not unmoved: compare the shares more than the milliseconds. The
wrapping costs a little of its own; the figures are for finding where to look, beside
`startup_phases.py` (by step) and `startup_instructions.py` (one load-independent count).

What making one class costs, counted in instructions (callgrind, Python 3.11, a hundred classes
of three fields in one module, less the module's imports alone): a frozen dataclass 3.5 M, a
plain one 1.9 M, a pydantic model with `defer_build` 2.2 M, a NamedTuple 0.8 M, a TypedDict
0.3 M, a class with `__slots__` and its own `__init__` 0.1 M. Python 3.11's dataclasses compile
each generated method from source (`__init__`, `__repr__`, `__eq__`, and `__hash__`,
`__setattr__` and `__delattr__` when frozen), and a class without a docstring also has its
signature formatted for one: so a dataclass on the start-up path costs more than a deferred
pydantic model, which is why the protocol's records are `Slotted` classes rather than either.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TypedDict

from tether.testing import FakeModelServer, reply, text

RUNS = int(os.environ.get("BENCH_RUNS", "5"))
STREAM_JSON = ("--output-format", "stream-json", "--verbose", "--input-format", "stream-json")
USER_LINE = json.dumps(
    {
        "type": "user",
        "message": {"role": "user", "content": "hi"},
        "parent_tool_use_id": None,
        "session_id": "default",
    }
)

# Run as `python -c CHILD PORT ARGS...`: tether's command line with the kinds of work timed,
# ended at its first connection to PORT, printing one JSON object on stderr.
CHILD = """\
import json, os, sys, time
port = int(sys.argv[1])
sys.argv = ["tether", *sys.argv[2:]]
costs = {}

def timed(kind, function):
    def wrapper(*args, **kwargs):
        started = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            count, seconds = costs.get(kind, (0, 0.0))
            costs[kind] = (count + 1, seconds + time.thread_time() - started)
    return wrapper

def by_owner(kind, function):
    # tether's own classes apart from the libraries': only the first are ours to change.
    own, theirs = timed(kind + ", tether's", function), timed(kind + ", libraries'", function)
    def wrapper(cls, *args, **kwargs):
        made = own if cls.__module__.startswith("tether.") else theirs
        return made(cls, *args, **kwargs)
    return wrapper

import dataclasses, re._compiler
dataclasses._process_class = by_owner("dataclasses made", dataclasses._process_class)
re._compiler.compile = timed("regular expressions compiled", re._compiler.compile)

def first_connection(event, args):
    if event == "socket.connect" and isinstance(args[1], tuple) and args[1][1] == port:
        found = {
            "process": time.process_time(),
            "main": time.thread_time(),
            "modules": len(sys.modules),
            "costs": costs,
        }
        sys.stderr.write("COSTS " + json.dumps(found) + "\\n")
        sys.stderr.flush()
        os._exit(0)

sys.addaudithook(first_connection)
from tether.main import console_main
console_main()
"""


class Run(TypedDict):
    """One run's figures (see CHILD): CPU seconds, and per kind (count, CPU seconds)."""

    process: float
    main: float
    modules: int
    costs: dict[str, tuple[int, float]]


def measure(stream_json: bool = False) -> list[Run]:
    """The figures of RUNS runs of `tether -p hi` (or, `stream_json`, of the flags the Agent
    SDK passes with one user message on stdin)."""
    runs: list[Run] = []
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer() as server:
        server.expect_rejections = True
        port = server.url.rsplit(":", 1)[1].split("/")[0]
        home, workspace = Path(tmp) / "home", Path(tmp) / "workspace"
        home.mkdir()
        workspace.mkdir()
        env = {
            **os.environ,
            "TETHER_HOME": str(home),
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": "bench",
        }
        env.pop("TETHER_MODEL", None)
        args = STREAM_JSON if stream_json else ("-p", "hi")
        for _ in range(RUNS):
            server.reset()
            server.script(reply(text("ok")))
            done = subprocess.run(
                [sys.executable, "-c", CHILD, port, *args],
                cwd=workspace,
                env=env,
                input=USER_LINE + "\n",
                capture_output=True,
                text=True,
            )
            lines = [line for line in done.stderr.splitlines() if line.startswith("COSTS ")]
            if not lines:
                raise RuntimeError(f"no figures from the child: {done.stderr[-2000:]}")
            runs.append(json.loads(lines[-1].removeprefix("COSTS ")))
    return runs


def report(runs: list[Run], what: str) -> None:
    process = statistics.median(run["process"] for run in runs)
    main = statistics.median(run["main"] for run in runs)
    modules = statistics.median(run["modules"] for run in runs)
    print(
        f"{what}: CPU to the first request (median of {len(runs)} runs; load average "
        f"{os.getloadavg()[0]:.1f}): {process * 1000:.0f} ms, the main thread's "
        f"{main * 1000:.0f} ms; {modules:.0f} modules"
    )
    for kind in sorted({kind for run in runs for kind in run["costs"]}):
        count = statistics.median(run["costs"].get(kind, (0, 0.0))[0] for run in runs)
        seconds = statistics.median(run["costs"].get(kind, (0, 0.0))[1] for run in runs)
        share = seconds / process
        print(f"  {kind:32} {count:5.0f} x  {seconds * 1000:6.1f} ms  ({share:4.0%} of it)")


if __name__ == "__main__":
    stream = "--stream-json" in sys.argv[1:]
    report(measure(stream), "stream-json" if stream else "tether -p hi")
