"""A long-lived library process that drops its sessions without closing them: nothing of
theirs stays in the process (no session, no event writer thread), and their rows and events
are still written; a session `/clear` replaces never waits on a ledger another process has
locked."""

from __future__ import annotations

import os
import select
import sqlite3
import subprocess
import sys
from pathlib import Path

from tether.testing import FakeModelServer, reply, text

SCRIPT = """
import asyncio, gc, json, os, sys, threading, weakref
from pathlib import Path
from tether.cli.setup import RunOptions, build_session
from tether.protocol import UserInput

import tether.cli.ledger_setup as ledger_setup
import tether.cli.observing as observing


async def one() -> weakref.ref:
    session = build_session(RunOptions(cwd=Path("."), model="claude-sonnet-5-5"))
    async for _ in session.submit(UserInput(text="hi")):
        pass
    return weakref.ref(session)  # dropped, never closed


async def main() -> None:
    gone = [await one() for _ in range(5)]
    await asyncio.sleep(0)
    gc.collect()
    writers = [t for t in threading.enumerate() if t.name == "tether-events"]
    for t in writers:
        t.join(10)
    print(json.dumps({
        "alive": sum(ref() is not None for ref in gone),
        "hubs": len(observing._OPEN_HUBS),
        "ledgers": len(ledger_setup._OPEN),
        "writers": sum(t.is_alive() for t in writers),
    }))


asyncio.run(main())
"""


def test_sessions_dropped_unclosed_leave_nothing_behind_and_lose_nothing(
    model_env: FakeModelServer, tmp_path: Path
) -> None:
    model_env.script(*[reply(text(f"done {i}")) for i in range(5)])
    workspace = tmp_path / "w"
    workspace.mkdir()
    script = tmp_path / "library_user.py"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == (
        '{"alive": 0, "hubs": 0, "ledgers": 0, "writers": 0}'
    ), done.stderr
    home = Path(os.environ["TETHER_HOME"])
    with sqlite3.connect(home / "ledger.db") as db:
        assert db.execute("SELECT count(*) FROM model_calls").fetchone()[0] == 5
    kinds = (home / "events" / "events.jsonl").read_text().count('"kind":"turn_finished"')
    assert kinds == 5


CLEAR_SCRIPT = """
import asyncio, sys
from pathlib import Path
from tether.cli.setup import RunOptions, build_session
from tether.protocol import UserInput
import tether.cli.ledger_setup as ledger_setup

ledger_setup.SESSION_END_WAIT_S = 3600.0  # an end that waits for the lock never returns


async def main() -> None:
    session = build_session(RunOptions(cwd=Path("."), model="claude-sonnet-5-5"))
    async for _ in session.submit(UserInput(text="hi")):
        pass
    await session.aclose("clear")  # the REPL's /clear: another session follows at once
    print("closed", flush=True)
    sys.stdin.readline()  # the lock is let go; the exit then writes what is queued


asyncio.run(main())
"""


def test_a_session_cleared_waits_on_no_ledger_lock(
    model_env: FakeModelServer, tmp_path: Path
) -> None:
    from tether.ledger import LedgerFile, ledger_path

    model_env.script(reply(text("done")))
    workspace = tmp_path / "w"
    workspace.mkdir()
    script = tmp_path / "clearing.py"
    script.write_text(CLEAR_SCRIPT)
    path = ledger_path(Path(os.environ["TETHER_HOME"]))
    LedgerFile(path).close()  # made, so that it can be locked
    locker = sqlite3.connect(path, isolation_level=None)
    locker.execute("BEGIN IMMEDIATE")  # another process writing, for as long as it takes
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        cwd=workspace,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdin is not None
        ready, _, _ = select.select([proc.stdout], [], [], 120)  # a bound: a failing test ends
        assert ready, "the session's end waited on the locked ledger"
        line = proc.stdout.readline()  # the lock still held: the end did not wait on it
        assert line == "closed\n", proc.stderr.read() if proc.stderr else ""
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    _out, err = proc.communicate("go\n", timeout=120)
    assert proc.returncode == 0, err
    with sqlite3.connect(path) as db:  # written at the exit, the lock let go
        assert db.execute("SELECT count(*) FROM model_calls").fetchone()[0] == 1
