"""A fork that cannot be finished (the disk full, the process killed half-way) leaves no
session behind: `-c` and the listing go on finding the session it was copied from."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tether.protocol import TextBlock
from tether.store import (
    SessionWriter,
    fork_session,
    latest_session,
    list_sessions,
    load_session,
    project_dir,
)

_FORK_WITH_A_SMALL_DISK = textwrap.dedent(
    """
    import resource, signal, sys
    from pathlib import Path
    from tether.protocol import HarnessError
    from tether.store import fork_session, load_session
    source, directory = Path(sys.argv[1]), Path(sys.argv[2])
    loaded = load_session(source)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
    try:
        fork_session(loaded, directory, "fork1", cwd=directory)
    except HarnessError as e:
        print(e)
        sys.exit(3)
    """
)


def _big_session(directory: Path, cwd: Path) -> Path:
    with SessionWriter.create(directory, "big", cwd=cwd) as writer:
        for n in range(100):
            writer.user([TextBlock(text=f"{n} " + "x" * 5_000)])
    return writer.path


def test_a_fork_the_disk_cannot_hold_leaves_nothing_and_continue_finds_the_source(
    tmp_path: Path,
) -> None:
    home, cwd = tmp_path / "home", tmp_path / "ws"
    here = project_dir(home, cwd)
    source = _big_session(here, cwd)  # 500 KB: past the 200 KB the child may write
    before = source.read_bytes()
    child = subprocess.run(
        [sys.executable, "-c", _FORK_WITH_A_SMALL_DISK, str(source), str(here)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert child.returncode == 3, child.stderr
    assert "could not save the session" in child.stdout
    assert sorted(p.name for p in here.iterdir()) == ["big.jsonl"]
    assert latest_session(home, cwd) == source
    assert [s.session_id for s in list_sessions(home, cwd)] == ["big"]
    assert source.read_bytes() == before


def test_a_fork_whose_process_died_is_removed_by_the_next_one_and_never_listed(
    tmp_path: Path,
) -> None:
    home, cwd = tmp_path / "home", tmp_path / "ws"
    here = project_dir(home, cwd)
    source = _big_session(here, cwd)
    # What a kill -9 half-way leaves: the start of a copy under its hidden name, unlocked.
    abandoned = here / ".dead.forking"
    abandoned.write_bytes(source.read_bytes()[:1000])
    # And a fork another process is writing right now: its lock is held.
    running = here / ".running.forking"
    running.write_bytes(b"")
    held = os.open(running, os.O_RDONLY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert latest_session(home, cwd) == source
        assert [s.session_id for s in list_sessions(home, cwd)] == ["big"]
        with fork_session(load_session(source), here, "fork1", cwd=cwd) as fork:
            assert fork.path == here / "fork1.jsonl"
            fork.user([TextBlock(text="only in the fork")])
        assert not abandoned.exists()
        assert running.exists()
    finally:
        os.close(held)
    forked = load_session(here / "fork1.jsonl")
    assert forked.forked_from == ("big", load_session(source).last_uuid)
    assert forked.warnings == ()
    assert len(tuple(forked.records())) == 101
