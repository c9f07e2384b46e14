"""The event log records what happened, not a second copy of the conversation: a tool input of
megabytes (streamed in thousands of pieces, then in the call, the reply and the result) takes
a few kilobytes of log, each long text cut to its head with its full size and SHA-256, which
match the session's transcript, where it is whole."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

from tether.observe.bounded import CUT, FIELD_CHARS, HEAD_CHARS
from tether.observe.records import log_files, read_records
from tether.testing import FakeModelServer, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


def test_a_big_tool_input_takes_little_of_the_log_and_is_named_by_size_and_hash(
    fake_model: FakeModelServer, tether: Run, workspace: Path
) -> None:
    content = "".join(f"line {i}: some words\n" for i in range(20_000))  # ~420 KB
    fake_model.script(reply(tool_use("Write", file_path="big.txt", content=content)))
    fake_model.script(reply(text("written")))
    result = tether("-p", "write it")
    assert (result.exit_code, result.stdout) == (0, "written\n"), result.stderr
    assert (workspace / "big.txt").read_text() == content
    home = Path(os.environ["TETHER_HOME"])
    logged = sum(path.stat().st_size for path in log_files(home))
    assert logged < 60_000, logged  # the input alone, streamed, called and replied: 1.7 MB

    records = list(read_records(home))
    [started] = [r for r in records if r.kind == "tool_started"]
    kept = started.payload["input"]["content"]
    assert kept.startswith(content[:HEAD_CHARS] + "… [cut: ")
    note = CUT.search(kept)
    assert note is not None
    assert int(note["chars"]) == len(content)
    assert note["sha256"] == hashlib.sha256(content.encode()).hexdigest()
    # Every text of every record is bounded, the streamed pieces' too.
    for record in records:
        for piece in _strings(record.payload):
            assert len(piece) <= FIELD_CHARS + 120, (record.kind, len(piece))
    # The session file is the record of the whole: the same text, whole.
    [transcript] = (home / "projects").rglob("*.jsonl")
    assert content.replace("\n", "\\n") in transcript.read_text()


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    return []
