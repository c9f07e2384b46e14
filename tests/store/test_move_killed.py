"""A session whose file was removed or replaced goes on in a copy: a process killed half-way
through that copy leaves no half file under a session's name, and the next start in the
directory removes what it left under its hidden name."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tether.protocol import TextBlock
from tether.store import SessionWriter, list_sessions, load_session, project_dir

# The copy is killed by the kernel where it writes past 200 KB (SIGXFSZ, whose default action
# ends the process once Python's own SIG_IGN is undone): a kill at a known place in the copy,
# with no hook in tether's code.
_KILLED_IN_THE_COPY = textwrap.dedent(
    """
    import os, resource, signal, sys
    from pathlib import Path
    from tether.protocol import TextBlock
    from tether.store import SessionWriter
    directory, how = Path(sys.argv[1]), sys.argv[2]
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python ignores it; the kernel's kill
    writer = SessionWriter.create(directory, "big", cwd=directory)
    for n in range(100):
        writer.user([TextBlock(text=f"{n} " + "x" * 5_000)])
    if how == "removed":
        writer.path.unlink()
    else:
        other = directory / "other.tmp"
        other.write_text("not this session")
        os.replace(other, writer.path)
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
    writer.user([TextBlock(text="after the file went away")])
    print("the copy was not killed")
    """
)


@pytest.mark.parametrize("how", ["removed", "replaced"])
def test_a_kill_in_the_copy_leaves_no_half_session_and_the_next_start_cleans_up(
    tmp_path: Path, how: str
) -> None:
    home, cwd = tmp_path / "home", tmp_path / "ws"
    here = project_dir(home, cwd)
    here.mkdir(parents=True)
    child = subprocess.run(
        [sys.executable, "-c", _KILLED_IN_THE_COPY, str(here), how],
        capture_output=True,
        text=True,
        check=False,
    )
    assert child.returncode == -signal.SIGXFSZ, (child.stdout, child.stderr)
    left = sorted(p.name for p in here.iterdir())
    expected = [] if how == "removed" else ["big.jsonl"]  # the replacing file, as it was
    assert [n for n in left if not n.startswith(".")] == expected
    assert len(left) == len(expected) + 1  # the copy, under its hidden name
    if how == "replaced":
        assert (here / "big.jsonl").read_text() == "not this session"
    # The next start in the directory removes the dead process's copy.
    with SessionWriter.create(here, "next", cwd=cwd) as writer:
        writer.user([TextBlock(text="hello")])
    assert sorted(p.name for p in here.iterdir()) == sorted([*expected, "next.jsonl"])
    assert {s.session_id for s in list_sessions(home, cwd)} == {"next", *(["big"] * len(expected))}


def test_a_copy_that_finishes_is_the_whole_session_under_its_name(tmp_path: Path) -> None:
    here = tmp_path / "sessions"
    with SessionWriter.create(here, "big", cwd=tmp_path) as writer:
        for n in range(30):
            writer.user([TextBlock(text=f"{n} " + "x" * 50_000)])  # past one copy chunk
        writer.path.unlink()
        writer.user([TextBlock(text="after the file went away")])
        [notice] = writer.notices
        assert "written again there, whole" in notice
    assert sorted(p.name for p in here.iterdir()) == ["big.jsonl"]
    loaded = load_session(here / "big.jsonl")
    assert loaded.warnings == ()
    assert len(tuple(loaded.records())) == 31
