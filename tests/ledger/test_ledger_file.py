"""The ledger file itself: several processes writing at once lose nothing; a broken file is
said clearly, left as it is, and does not stop a session."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from tether.ledger import LedgerError, LedgerFile
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

from .conftest import cost, ledger_file, rows

Run = Callable[..., CliResult]

WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from tether.ledger import LedgerRecorder, LedgerWriter, Rates
    from tether.protocol import (
        Message, MessageCompleted, ToolResultBlock, ToolUseBlock, Usage,
    )

    path, session, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    failures = []
    writer = LedgerWriter(path, warn=failures.append)
    recorder = LedgerRecorder(
        writer, session_id=session, rates_for=lambda _m: Rates(1, 2, 3, 4),
    )
    recorder.started("m", "/")
    writer.flush()  # the file opened and migrated before either goes
    print("ready", flush=True)
    sys.stdin.readline()
    usage = Usage(input_tokens=10, output_tokens=4)
    for n in range(count):
        call = ToolUseBlock(id=f"c{n}", name="Bash", input={"command": "true"})
        recorder.observe(MessageCompleted(
            message=Message(role="assistant", content=(call,)), usage=usage, model="m",
        ))
        result = ToolResultBlock(tool_use_id=f"c{n}", content="x" * 40)
        recorder.observe(MessageCompleted(message=Message(role="user", content=(result,))))
    recorder.close()
    writer.close()
    print(failures, flush=True)
    """
)


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    count = 150
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), f"s{n}", str(count)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(2)
    ]
    for writer in writers:  # both have the ledger open before either writes
        assert writer.stdout is not None
        assert writer.stdout.readline() == "ready\n"
    for writer in writers:
        assert writer.stdin is not None
        writer.stdin.write("go\n")
        writer.stdin.flush()
    for writer in writers:
        out, _ = writer.communicate(timeout=120)
        assert (writer.returncode, out) == (0, "[]\n")
    ledger = LedgerFile(path)
    counted = ledger.read(
        "SELECT session_id, COUNT(*), SUM(output_tokens) FROM model_calls GROUP BY 1 ORDER BY 1"
    )
    assert counted == [("s0", count, 4 * count), ("s1", count, 4 * count)]
    tools = ledger.read("SELECT session_id, COUNT(*) FROM tool_calls GROUP BY 1 ORDER BY 1")
    assert tools == [("s0", count), ("s1", count)]
    # Each result was charged in the request after it (10 plain input tokens there).
    [(charged,)] = ledger.read("SELECT COUNT(*) FROM tool_calls WHERE input_tokens > 0")
    assert charged == 2 * (count - 1)


def test_a_broken_ledger_is_said_and_the_session_goes_on(
    fake_model: FakeModelServer, tether: Run
) -> None:
    broken = ledger_file()
    garbage = b"this is not a database, but someone's notes\n" * 200
    broken.write_bytes(garbage)
    fake_model.script(reply(tool_use("Bash", command="echo hi")), reply(text("all done")))
    result = tether("-p", "hi", "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["result"] == "all done"
    assert (
        f"tether: the cost ledger {broken} is not usable (file is not a database): move it "
        "away to start an empty one (the costs it holds are then not counted); this "
        "session's costs are not recorded\n"
    ) in result.stderr
    assert broken.read_bytes() == garbage  # nothing written over what was there

    shown = cost("--by", "model")
    assert shown.exit_code == 1
    assert shown.stderr == (
        f"tether cost: the cost ledger {broken} is not usable (file is not a database): move "
        "it away to start an empty one (the costs it holds are then not counted)\n"
    )
    broken.unlink()  # moved away: the next session starts a new ledger
    fake_model.script(reply(text("again")))
    assert tether("-p", "again").exit_code == 0
    assert len(rows("model_calls")) == 1


def test_a_ledger_from_a_newer_tether_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ledger.db"
    LedgerFile(path).close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(LedgerError) as refused:
        LedgerFile(path)
    assert str(refused.value) == (
        f"the cost ledger {path} is not usable (written by a newer tether (version 99, this "
        "one reads 4)): move it away to start an empty one (the costs it holds are then not "
        "counted)"
    )
