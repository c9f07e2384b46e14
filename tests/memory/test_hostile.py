"""Semantic memory in a hostile environment: several processes making and filling one new
memory file at once, and a disk that fills (RLIMIT_FSIZE) mid-save: a clear message, and
nothing saved before is lost."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tether.memory.store import MemoryStore

SAVER = """
import sys, time
from pathlib import Path
from tether.memory.store import MemoryStore
path, go, n = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
while not go.exists():
    time.sleep(0.001)
store = MemoryStore(path, None)
for i in range(n):
    store.save(f"process {sys.argv[4]} note {i}")
"""

FILLER = """
import resource, sys
from pathlib import Path
from tether.memory.store import MemoryFileError, MemoryStore
path = Path(sys.argv[1])
store = MemoryStore(path, None)
for i in range(5):
    store.save(f"kept {i}")
limit = path.stat().st_size + 8192
sys.dont_write_bytecode = True  # no bytecode cut short by the limit in the shared cache
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
try:
    for i in range(1000):
        store.save(f"large {i} " + "x" * 4000)
except MemoryFileError as e:
    print(e)
"""


def test_processes_opening_a_new_memory_at_once_each_save_everything(tmp_path: Path) -> None:
    path, go = tmp_path / "memory.db", tmp_path / "go"
    savers = [
        subprocess.Popen(
            [sys.executable, "-c", SAVER, str(path), str(go), "50", str(n)],
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    go.touch()  # all of them open the file that is not there yet at the same moment
    errors = [saver.communicate(timeout=120)[1] for saver in savers]
    assert [saver.returncode for saver in savers] == [0, 0, 0, 0], errors
    store = MemoryStore(path, None)
    assert store.count() == 200
    assert {m.text for m in store.list()} == {
        f"process {n} note {i}" for n in range(4) for i in range(50)
    }


def test_a_full_disk_is_said_clearly_and_loses_nothing_saved_before(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    done = subprocess.run(
        [sys.executable, "-c", FILLER, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    said = done.stdout.strip()
    assert said.startswith(f"{path} cannot be written ("), said
    assert said.endswith(
        "the disk is full, or the file is past a size limit); what was being saved is not "
        "kept, the memories before it are"
    ), said
    store = MemoryStore(path, None)  # with room again: all there, and saving works
    kept = [f.memory.text for f in store.search("kept", 10)]
    assert sorted(kept) == [f"kept {i}" for i in range(5)]
    store.save("after the disk has room again")
    assert store.search("room again", 1)[0].memory.text == "after the disk has room again"
