"""Processes started from a template: this process, once it has imported what the child runs,
forks, and the child runs it at once (no interpreter to start, nothing to import again).
`tether worker --count N` starts its workers so (its store closed first: a SQLite connection
open across a fork breaks the child's own, which share the parent's lock and WAL state).

Forking is safe only from a process of one thread (a lock another thread held would stay
held in the child for ever): `can_fork` says whether this one is, and callers start a new
process where it is not (a lead session's Task tool runs threads). The child ends with
`os._exit`, so nothing of the parent's stack (its `finally` blocks, its `atexit`
handlers, its open stores) runs in it after its work."""

from __future__ import annotations

import contextlib
import importlib
import os
import random
import signal
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import NoReturn

SESSION_MODULES = (
    "tether.cli.setup",
    "tether.cli.commands",
    "tether.cli.resuming",
    "tether.teams.tools",
    "tether.teams.spend",
    "tether.models.anthropic",
    "tether.models.sse_client",
    "tether.models.preload",
    "tether.sandbox.bwrap",
    "tether.sandbox.plan",
    "tether.permissions.engine",
    "tether.tools.builtin",
    "tether.tools.builtin.files",
    "tether.mcp.servers",
    "tether.ledger.recorder",
    "tether.hooks.runner",
    "anyio._backends._asyncio",
)
"""What a session's build, its first model call and its first tool call import (named, not
imported, here: the template imports them before it forks; a module a child does not find it
imports itself). The permission engine (the shell parser, the per-program policies) is loaded
by a session's first permission decision, not with the session: a child that runs tools pays
its import at its first tool call unless its template has it."""

SPAWN_ENV = "TETHER_SPAWN"
"""Set to 1: children are new processes, never forked (the benches compare the two)."""


class Child:
    """A child process, forked (`fork`) or started afresh (a `Popen`)."""

    def __init__(self, pid: int, popen: subprocess.Popen[bytes] | None = None) -> None:
        self.pid, self._popen = pid, popen
        self.returncode: int | None = None
        """As `Popen.returncode`: -N when killed by signal N; None while it runs."""

    def wait(self) -> int:
        if self._popen is not None:
            self.returncode = self._popen.wait()
        elif self.returncode is None:
            _, status = os.waitpid(self.pid, 0)
            self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode

    def poll(self) -> int | None:
        if self._popen is not None:
            self.returncode = self._popen.poll()
        elif self.returncode is None:
            with contextlib.suppress(ChildProcessError):
                pid, status = os.waitpid(self.pid, os.WNOHANG)
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode


def can_fork() -> bool:
    """Whether children may be forked from this process: it can fork, runs one thread, and
    `SPAWN_ENV` does not ask for new processes."""
    return (
        hasattr(os, "fork") and threading.active_count() == 1 and os.environ.get(SPAWN_ENV) != "1"
    )


def warm(modules: Iterable[str]) -> None:
    """Import what the children run, so that each forked one has it; and build the
    validators of tether's models whose build waits for their first use (`defer_build`: a
    short command, `tether team send`, pays only for those it uses), so that the children do
    not each build them again."""
    for name in modules:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    for name, module in list(sys.modules.items()):
        if name.startswith("tether."):
            _build_deferred(module)


def _build_deferred(module: ModuleType) -> None:
    from pydantic import BaseModel  # imported by every module that defines one

    defined: dict[str, object] = getattr(module, "__dict__", {})  # None: an import blocked
    for value in list(defined.values()):
        if (
            isinstance(value, type)
            and issubclass(value, BaseModel)
            and value.__module__ == module.__name__
            and not value.__pydantic_complete__
        ):
            value.model_rebuild()


def fork(prepare: Callable[[], None], run: Callable[[], int]) -> Child:
    """A child forked from this process (`can_fork` first): it calls `prepare` (its own
    session, its descriptors, its environment), then `run`, and exits with its code."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return Child(pid)
    _child(prepare, run)


def _child(prepare: Callable[[], None], run: Callable[[], int]) -> NoReturn:
    code = 1
    try:
        random.seed()  # not the parent's sequence, nor a sibling's
        for signum in (signal.SIGTERM, signal.SIGHUP):  # the parent's handlers are its own
            signal.signal(signum, signal.SIG_DFL)
        prepare()
        code = run()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
    except KeyboardInterrupt:  # Ctrl+C, unhandled: ended by it, as its default action would
        from tether.processes import end_by_signal

        end_by_signal(signal.SIGINT)
    except BaseException:
        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)
