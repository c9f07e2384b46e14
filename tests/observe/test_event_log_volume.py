"""A tool input of megabytes streams in thousands of pieces: the event log joins each batch's
pieces of one call (the same text, in order) instead of a record per piece."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from tether.observe.records import read_records
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def test_a_big_tool_input_is_logged_in_few_records_holding_all_of_it(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    content = "".join(f"line {i}: some words\n" for i in range(20_000))  # ~420 KB
    fake_model.script(reply(tool_use("Write", file_path="big.txt", content=content)))
    fake_model.script(reply(text("written")))
    result = tether("-p", "write it")
    assert (result.exit_code, result.stdout) == (0, "written\n"), result.stderr
    assert (workspace / "big.txt").read_text() == content
    records = list(read_records(Path(os.environ["TETHER_HOME"])))
    pieces = [r.payload["partial_json"] for r in records if r.kind == "tool_input_delta"]
    joined = "".join(p for p in pieces if p is not None)
    assert json.loads(joined)["content"] == content
    # Pieces of ~20 characters, 512 a batch at most: ~45 records when the writer keeps up
    # with full batches, ~23,000 unjoined. A writer ahead of the stream takes smaller
    # batches: the bound leaves it five times the room.
    assert len(pieces) <= len(joined) // 2_000, len(pieces)
