"""Under a file size limit (`ulimit -f`) the import system writes a module's bytecode cut short,
without noticing (it ignores the write's count), and every later import of that module, by any
process, fails with "marshal data too short". tether writes none then. Measured before: a test
running tether under an 8 KiB limit cut 40 files of the checkout's shared cache at 8,192 bytes,
and the next process importing the permission engine failed."""

from __future__ import annotations

import marshal
import os
import resource
import subprocess
import sys
from pathlib import Path


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (8 * 1024, 8 * 1024))


def test_no_bytecode_is_written_cut_short_under_a_file_size_limit(tmp_path: Path) -> None:
    cache = tmp_path / "pycache"
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(cache)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [sys.executable, "-c", "import tether.permissions.engine"],
        env=env,
        preexec_fn=_limited,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    broken: list[str] = []
    # tether's own (the standard library's, imported before tether, are the interpreter's
    # concern: an installed Python has them compiled already, outside this prefix).
    for path in cache.rglob("tether/**/*.pyc"):
        try:
            marshal.loads(path.read_bytes()[16:])
        except (EOFError, ValueError):
            broken.append(path.name)
    assert broken == []
    # The package's own (written before its code runs, and small) is the one written.
    written = {p.relative_to(cache).as_posix() for p in cache.rglob("tether/**/*.pyc")}
    own = f"tether/__init__.{sys.implementation.cache_tag}.pyc"
    assert {w.rpartition("src/")[2] for w in written} <= {own}
    # Without the limit the cache is written as usual (in a cache of its own: the standard
    # library's, cut short above, would fail it).
    env["PYTHONPYCACHEPREFIX"] = str(tmp_path / "unlimited")
    unlimited = subprocess.run(
        [sys.executable, "-c", "import tether.permissions.engine"], env=env, check=False
    )
    assert unlimited.returncode == 0
    assert any(p.name.startswith("engine.") for p in (tmp_path / "unlimited").rglob("*.pyc"))
