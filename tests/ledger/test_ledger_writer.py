"""The ledger's writes off the loop: a lock held by another process holds up no output and
loses nothing; a ledger that fails (a full disk) is said once and the session goes on; the
files are the user's alone (0600, as the event log)."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

from tether.ledger import LedgerFile, LedgerWriter
from tether.ledger.writer import Change
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import run_cli

from .conftest import ledger_file, rows

INSERT_SESSION = "INSERT INTO sessions VALUES (?, 'at', 'm', '/', NULL)"


def test_a_locked_ledger_holds_up_no_output_and_loses_no_cost(
    model_env: FakeModelServer, workspace: Path
) -> None:
    LedgerFile(ledger_file()).close()  # made, so another process can lock it
    locker = sqlite3.connect(ledger_file(), isolation_level=None)
    locker.execute("BEGIN IMMEDIATE")  # another process writing, for as long as it takes
    model_env.script(reply(tool_use("Bash", command="echo hi")), reply(text("all done")))
    session = subprocess.Popen(
        [
            *(sys.executable, "-m", "tether", "-p", "hi", "--output-format", "stream-json"),
            *("--verbose", "--permission-mode", "bypassPermissions", "--cwd", str(workspace)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    assert session.stdout is not None
    assert session.stderr is not None
    lines: list[dict[str, object]] = []
    try:
        while not lines or lines[-1]["type"] != "result":  # the whole answer, the lock held
            lines.append(json.loads(session.stdout.readline()))
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    assert session.wait(timeout=60) == 0  # its exit waited for the lock
    assert lines[-1]["result"] == "all done"
    assert session.stdout.read() == ""
    assert "ledger" not in session.stderr.read()
    session.stdout.close()
    session.stderr.close()
    assert [(r["session_id"], r["output_tokens"]) for r in rows("model_calls")] == [
        (lines[-1]["session_id"], 6),
        (lines[-1]["session_id"], 2),
    ]
    assert [r["tool"] for r in rows("tool_calls")] == ["Bash"]


def test_what_a_lock_held_past_the_end_keeps_out_is_counted_and_said_once(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ledger.db"
    LedgerFile(path).close()
    said: list[str] = []
    writer = LedgerWriter(path, warn=said.append, queue_size=3, attempt_ms=50)
    locker = sqlite3.connect(path, isolation_level=None)
    locker.execute("BEGIN IMMEDIATE")
    try:
        for n in range(5):  # two past the queue's bound
            writer.submit(Change(((INSERT_SESSION, [(f"s{n}",)]),), model_calls=1))
        writer.close(0.2)
    finally:
        locker.execute("ROLLBACK")
        locker.close()
    assert len(said) == 1
    assert said[0].startswith(f"the cost ledger {path} was locked by another process for ")
    assert said[0].endswith(": 5 model calls' costs not recorded")
    assert (writer.losses.full, writer.losses.unsent) == (2, 3)


FULL_DISK = textwrap.dedent(
    """
    import resource, signal, sys
    from pathlib import Path
    from tether.ledger import LedgerWriter
    from tether.ledger.writer import Change

    path = Path(sys.argv[1])
    said = []
    writer = LedgerWriter(path, warn=said.append)
    sql = "INSERT INTO sessions VALUES (?, ?, 'm', '/', NULL)"
    writer.submit(Change(((sql, [("first", "x")]),)))
    assert writer.flush()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails, as on a full disk
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
    for n in range(400):  # each returns at once, the failure or not
        writer.submit(Change(((sql, [(f"s{n}", "y" * 4000)]),), model_calls=1))
    writer.close()
    print(said)
    """
)


def test_a_full_disk_mid_session_is_said_once_and_nothing_raised(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(path)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    [said] = eval(done.stdout)  # one line, a list of str printed by the script
    assert said.startswith(f"the cost ledger {path} cannot be used: ")
    assert said.endswith("; this session's costs are no longer recorded")


def test_the_ledger_and_its_wal_are_the_users_alone(
    model_env: FakeModelServer, workspace: Path
) -> None:
    model_env.script(reply(text("done")))
    ledger = ledger_file()
    seen: dict[str, int] = {}
    locker: sqlite3.Connection | None = None
    before = os.umask(0o022)  # the usual umask, under which SQLite's own creation gives 0644
    try:
        assert run_cli(["-p", "hi", "--cwd", str(workspace)]).exit_code == 0
        locker = sqlite3.connect(ledger)  # a reader keeps the -wal and -shm there
        locker.execute("SELECT COUNT(*) FROM model_calls").fetchone()
        for suffix in ("", "-wal", "-shm"):
            seen[suffix] = stat.S_IMODE(os.stat(f"{ledger}{suffix}").st_mode)
    finally:
        os.umask(before)
        if locker is not None:
            locker.close()
    assert seen == {"": 0o600, "-wal": 0o600, "-shm": 0o600}
