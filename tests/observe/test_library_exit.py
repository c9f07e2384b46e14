"""A library's sessions (no CLI around them): every model call in the ledger and every event
in the log, however the session ends (closed, never closed, an exception, its close
cancelled), and a webhook that never answers does not hold the interpreter's exit."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tether.testing import FakeModelServer, reply, text, tool_use

SCRIPT = """
import asyncio, os, sqlite3, sys
from pathlib import Path
from tether.cli.setup import RunOptions, build_session
from tether.protocol import ToolStarted, UserInput

mode = sys.argv[1]


async def main() -> None:
    session = build_session(RunOptions(cwd=Path("."), model="claude-sonnet-5-5",
                                       trust_workspace=True))
    try:
        async for event in session.submit(UserInput(text="hi")):
            if mode == "raise" and isinstance(event, ToolStarted):
                raise RuntimeError("the caller's own bug")
    finally:
        if mode == "close-cancelled":
            closing = asyncio.ensure_future(session.aclose())
            await asyncio.sleep(0)
            closing.cancel()
            await asyncio.gather(closing, return_exceptions=True)
        elif mode in ("closed", "raise"):
            await session.aclose()
    if mode == "closed":  # read back at once, in the same process: nothing still queued
        db = sqlite3.connect(Path(os.environ["TETHER_HOME"]) / "ledger.db")
        print("rows", db.execute("SELECT count(*) FROM model_calls").fetchone()[0])


asyncio.run(main())
"""


def _run(mode: str, workspace: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    script = workspace.parent / "library_user.py"
    script.write_text(SCRIPT)
    return subprocess.run(
        [sys.executable, str(script), mode],
        cwd=workspace,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _ledger_calls(home: Path) -> int:
    with sqlite3.connect(home / "ledger.db") as db:
        return int(db.execute("SELECT count(*) FROM model_calls").fetchone()[0])


def _kinds(home: Path) -> list[str]:
    lines = (home / "events" / "events.jsonl").read_text().splitlines()
    return [json.loads(line)["kind"] for line in lines]


@pytest.mark.parametrize("mode", ["closed", "never-closed", "close-cancelled"])
def test_every_row_and_event_is_kept_however_the_session_ends(
    mode: str, model_env: FakeModelServer, tmp_path: Path
) -> None:
    model_env.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    workspace = tmp_path / "w"
    workspace.mkdir()
    result = _run(mode, workspace)
    assert result.returncode == 0, result.stderr
    home = Path(os.environ["TETHER_HOME"])
    assert _ledger_calls(home) == 2
    if mode == "closed":
        assert "rows 2" in result.stdout
    kinds = _kinds(home)
    assert kinds[0] == "turn_started", kinds
    assert kinds[-1] == "turn_finished", kinds
    assert kinds.count("message_completed") == 3  # the call, the tool's result, the answer


def test_a_session_ended_by_the_callers_exception_keeps_what_it_did(
    model_env: FakeModelServer, tmp_path: Path
) -> None:
    model_env.script(reply(tool_use("Bash", command="echo hi")), reply(text("done")))
    workspace = tmp_path / "w"
    workspace.mkdir()
    result = _run("raise", workspace)
    assert result.returncode == 1
    assert "the caller's own bug" in result.stderr
    home = Path(os.environ["TETHER_HOME"])
    assert _ledger_calls(home) == 1  # the one call made before the caller gave up
    with sqlite3.connect(home / "ledger.db") as db:
        assert db.execute("SELECT tool FROM tool_calls").fetchall() == [("Bash",)]
    assert _kinds(home)[-1] == "turn_finished"


def test_a_webhook_that_never_answers_does_not_hold_the_exit(
    model_env: FakeModelServer, tmp_path: Path
) -> None:
    model_env.script(reply(text("done")))
    workspace = tmp_path / "w"
    (workspace / ".tether").mkdir(parents=True)
    with socket.socket() as blackhole:  # accepts connections, never answers
        blackhole.bind(("127.0.0.1", 0))
        blackhole.listen(64)
        url = f"http://127.0.0.1:{blackhole.getsockname()[1]}/hook"
        (workspace / ".tether" / "settings.local.json").write_text(
            json.dumps({"webhooks": [{"url": url, "timeout": 30}]})
        )
        result = _run("never-closed", workspace, timeout=30)
    assert result.returncode == 0, result.stderr
    assert "not delivered" in result.stderr
    assert "not sent before exit" in result.stderr
    kinds = _kinds(Path(os.environ["TETHER_HOME"]))
    assert kinds[-1] == "webhook_dropped"
    assert "turn_finished" in kinds
