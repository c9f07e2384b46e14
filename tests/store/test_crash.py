"""A writer killed with SIGKILL mid-stream loses at most the line it was writing."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from tether.protocol import TextBlock
from tether.store import SessionWriter, UserRecord, load_session

WRITER = """
import sys
from pathlib import Path
from tether.protocol import TextBlock
from tether.store import SessionWriter

directory = Path(sys.argv[1])
writer = SessionWriter.create(directory, "crash", cwd=directory)
n = 0
while True:
    writer.user([TextBlock(text=f"entry {n} " + "x" * (n * 37 % 5000))])
    n += 1
"""
ENOUGH = 500


def text(n: int) -> str:
    return f"entry {n} " + "x" * (n * 37 % 5000)


def test_every_entry_written_before_a_kill_9_loads_with_an_unbroken_chain(tmp_path: Path) -> None:
    path = tmp_path / "crash.jsonl"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)])
    try:
        deadline = time.monotonic() + 60
        while not (path.exists() and path.read_bytes().count(b"\n") >= ENOUGH):
            assert writer.poll() is None, "the writer died on its own"
            assert time.monotonic() < deadline, "the writer is too slow"
            time.sleep(0.01)
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    assert writer.returncode == -signal.SIGKILL

    data = path.read_bytes()
    complete = data.split(b"\n")[:-1]
    cut = data[data.rfind(b"\n") + 1 :]  # a line the kill cut short, if any
    loaded = load_session(path)
    records = tuple(loaded.records())
    assert len(complete) >= ENOUGH
    assert records == tuple(UserRecord((TextBlock(text=text(n)),)) for n in range(len(records)))
    assert len(complete) <= len(records) <= len(complete) + 1
    # A line the kill cut short (if it is not whole JSON already) is said, once.
    assert len(records) + len(loaded.warnings) == len(complete) + (1 if cut else 0)
    entries = [json.loads(line) for line in complete]
    assert [e["parentUuid"] for e in entries] == [None, *(e["uuid"] for e in entries[:-1])]

    with SessionWriter.reopen(path, cwd=tmp_path, last_uuid=loaded.last_uuid) as resumed:
        resumed.user([TextBlock(text="after the crash")])
    after = load_session(path)
    assert tuple(after.records()) == (*records, UserRecord((TextBlock(text="after the crash"),)))
    assert after.warnings == loaded.warnings
    newest = json.loads(path.read_bytes().splitlines()[-1])
    assert newest["parentUuid"] == loaded.last_uuid
