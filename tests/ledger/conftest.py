"""Reading the ledger a test's sessions wrote under its TETHER_HOME."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from tether.cli.ledger_setup import flush_process_ledger
from tether.testing.cli_runner import CliResult


def ledger_file() -> Path:
    return Path(os.environ["TETHER_HOME"]) / "ledger.db"


def rows(table: str, order: str = "rowid") -> list[dict[str, Any]]:
    """The rows of one of the ledger's tables, as dicts, without their timestamps (what this
    process's sessions queued written first, as `/cost` does: the writer lets changes gather)."""
    flush_process_ledger(ledger_file(), 10.0)
    with sqlite3.connect(ledger_file()) as db:
        cursor = db.execute(f"SELECT * FROM {table} ORDER BY {order}")
        names = [column[0] for column in cursor.description]
        found = cursor.fetchall()
    return [
        {k: v for k, v in zip(names, row, strict=True) if k not in ("at", "started_at")}
        for row in found
    ]


def cost(*argv: str) -> CliResult:
    """`tether cost ARGV` in this process (TETHER_HOME is the test's)."""
    from tether.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["cost", *argv])
        except SystemExit as e:  # argparse's usage errors
            code = e.code if isinstance(e.code, int) else 2
    return CliResult(code, out.getvalue(), err.getvalue())


def cost_json(*argv: str) -> Any:
    result = cost(*argv, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)
