"""`tether worker --count N`: N worker processes started and watched from this one.

Each worker runs in a session of its own and watches a pipe from this process, so that when it
dies, even by SIGKILL, each stops as on SIGTERM (its task given back); Ctrl+C, SIGTERM and
SIGHUP are passed on. A worker that dies by a signal is said, with the tasks it held.

This process is the workers' template: it imports once what a worker runs (`WARM`: its loop,
the session build, the model client, the sandbox, the tools), then forks each worker from
itself, which runs the worker's `main` at once: no interpreter to start and nothing to import
again, per worker (bench/worker_start_bench.py measures it; `tether.teams.forked`). Where it
cannot fork (`can_fork`), each worker is a new `tether worker` process."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence

from tether.teams.forked import SESSION_MODULES, Child, can_fork, fork, warm

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""The signals that stop a worker (its task given back), passed on to N workers."""
PARENT_FD_ENV = "TETHER_WORKER_PARENT_FD"
"""For a worker started by `--count N`: the read end of a pipe whose only write end the
parent holds. It reads as the end of the file once the parent is gone, however it died."""

WARM = (
    *SESSION_MODULES,
    "tether.cli.worker_session",
    "tether.teams.worker",
    "tether.teams.worker_ran",
    "tether.teams.store_calls",
)
"""What a worker imports as it starts and runs its first task, imported once here before the
workers are forked (a module a worker does not find here it imports itself)."""

Serve = Callable[[list[str]], int]
"""A worker's `main`: its argv (`--count 1`) -> its exit code."""


def _start(one: list[str], watched: int, held: int, serve: Serve | None) -> Child:
    if serve is None:
        popen = subprocess.Popen(
            [sys.executable, "-m", "tether", "worker", *one],
            start_new_session=True,
            pass_fds=(watched,),
            env={**os.environ, PARENT_FD_ENV: str(watched)},
        )
        return Child(popen.pid, popen)

    def prepare() -> None:  # the parent's end of the pipe closed: its own is the only one
        os.setsid()
        os.close(held)
        os.environ[PARENT_FD_ENV] = str(watched)

    return fork(prepare, lambda: serve(one))


def run_many(
    argv: Sequence[str],
    count: int,
    *,
    held_by: Callable[[str], list[str]],
    serve: Serve | None = None,
) -> int:
    """N worker processes, each in a session of its own (a terminal's Ctrl+C reaches this
    process, which passes it on once), forked from this one to run `serve` (each a `tether
    worker` process of its own without it); the worst exit code, a worker killed by signal N
    counting as 128+N. A worker that dies by a signal (SIGKILL, the OOM killer) is said as it
    happens, naming the tasks it held, and again in the summary."""
    one = [*_without_count(argv), "--count", "1"]
    if serve is not None and can_fork():
        warm(WARM)
    else:
        serve = None
    watched, held = os.pipe()  # neither is inherited unless passed: `held` stays here alone
    children = [_start(one, watched, held, serve) for _ in range(count)]
    os.close(watched)
    host = socket.gethostname()
    deaths: list[str] = []

    def watch(child: Child) -> None:
        code = child.wait()
        if code >= 0:
            return
        owner = f"worker-{child.pid}@{host}"
        name = _signal_name(-code)
        deaths.append(f"{owner} ({name})")
        tasks = held_by(owner)
        fate = (
            f"holding {', '.join(tasks)}: it goes back to the board once its lease runs out"
            if tasks
            else "holding no task"
        )
        print(f"tether worker: {owner} died ({name}), {fate}", flush=True)

    watchers = [threading.Thread(target=watch, args=(c,), daemon=True) for c in children]
    for watcher in watchers:
        watcher.start()

    def forward(signum: int, _frame: object) -> None:
        for child in children:
            if child.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(child.pid, signum)

    previous = {s: signal.signal(s, forward) for s in STOP_SIGNALS}
    try:
        for watcher in watchers:
            watcher.join()
        codes = [_exit_code(child.returncode) for child in children if child.returncode is not None]
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        os.close(held)
    if deaths:
        print(
            f"tether worker: {len(deaths)} of {count} worker(s) died by a signal: "
            f"{', '.join(deaths)}",
            flush=True,
        )
    return max(codes, key=lambda code: (code != 0, code))


def _exit_code(returncode: int) -> int:
    """A child's exit status as a shell says it: killed by signal N is 128+N."""
    return 128 - returncode if returncode < 0 else returncode


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def parent_pipe() -> int | None:
    """The pipe a `--count N` parent gave this worker, taken out of the environment (the
    task sessions and their commands do not inherit it)."""
    value = os.environ.pop(PARENT_FD_ENV, None)
    if value is None or not value.isdigit():
        return None
    fd = int(value)
    try:
        os.set_inheritable(fd, False)
    except OSError:
        return None  # not open: nothing to watch
    return fd


def _without_count(argv: Sequence[str]) -> list[str]:
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--count":
            skip = True
        elif not arg.startswith("--count="):
            kept.append(arg)
    return kept
