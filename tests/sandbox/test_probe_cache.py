"""A session's probe that worked is kept for the next processes (`probe_cache.py`): the next
start runs no bwrap while nothing the answer depends on has changed, and probes again when
something has. Each "start" here is a process of its own."""

from __future__ import annotations

import contextlib
import json
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.sandbox.placeholders import private_dir

START = """\
import json, sys
from pathlib import Path
from tether.sandbox import probe
status = probe(search_path=sys.argv[1], proc_sys=Path(sys.argv[2]))
print(json.dumps([status.works, status.disable_userns, str(status.bwrap)]))
"""


def kept_for(program_dir: Path) -> list[Path]:
    """The files the probes kept for a program in `program_dir` (other processes may remove
    theirs meanwhile: those are skipped)."""
    found: list[Path] = []
    for kept in private_dir().glob("probe-*.json"):
        with contextlib.suppress(OSError):
            if str(program_dir) in kept.read_text(encoding="utf-8", errors="replace"):
                found.append(kept)
    return found


def forget(program_dir: Path) -> None:
    for kept in kept_for(program_dir):
        kept.unlink(missing_ok=True)


@pytest.fixture
def bin_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory for a fake `bwrap`; what the probes kept of it is removed afterwards."""
    directory = tmp_path / "bin"
    directory.mkdir()
    yield directory
    forget(directory)


def fake_bwrap(directory: Path, log: Path, status: int = 0) -> Path:
    """A `bwrap` that notes each run and offers --disable-userns."""
    program = directory / "bwrap"
    program.write_text(
        f'#!/bin/sh\necho "$1" >> {shlex.quote(str(log))}\n'
        '[ "$1" = --help ] && echo "    --ro-bind-fd FD DEST    --disable-userns"\n'
        f"exit {status}\n"
    )
    program.chmod(0o755)
    return program


def start(bin_dir: Path, proc_sys: Path) -> list[object]:
    done = subprocess.run(
        [sys.executable, "-c", START, str(bin_dir), str(proc_sys)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def runs(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_a_success_is_kept_until_the_program_changes(bin_dir: Path, tmp_path: Path) -> None:
    log, proc_sys = tmp_path / "runs.log", tmp_path / "sys"
    program = fake_bwrap(bin_dir, log)
    found = [True, True, str(program)]
    assert start(bin_dir, proc_sys) == found
    assert runs(log) == 2  # --help, then the trial
    assert start(bin_dir, proc_sys) == found
    assert runs(log) == 2  # the next start ran no bwrap
    program.write_text(program.read_text() + "# upgraded\n")
    assert start(bin_dir, proc_sys) == found
    assert runs(log) == 4


def test_a_changed_kernel_setting_is_probed_again(bin_dir: Path, tmp_path: Path) -> None:
    log, proc_sys = tmp_path / "runs.log", tmp_path / "sys"
    (proc_sys / "user").mkdir(parents=True)
    (proc_sys / "user" / "max_user_namespaces").write_text("15000\n")
    fake_bwrap(bin_dir, log)
    start(bin_dir, proc_sys)
    start(bin_dir, proc_sys)
    assert runs(log) == 2
    (proc_sys / "user" / "max_user_namespaces").write_text("0\n")
    start(bin_dir, proc_sys)
    assert runs(log) == 4


def test_a_failure_is_not_kept(bin_dir: Path, tmp_path: Path) -> None:
    log, proc_sys = tmp_path / "runs.log", tmp_path / "sys"
    fake_bwrap(bin_dir, log, status=1)
    assert start(bin_dir, proc_sys)[0] is False
    assert start(bin_dir, proc_sys)[0] is False
    assert runs(log) == 4  # --help and the trial at each start


def test_what_was_kept_for_a_program_gone_is_forgotten(bin_dir: Path, tmp_path: Path) -> None:
    log, proc_sys = tmp_path / "runs.log", tmp_path / "sys"
    fake_bwrap(bin_dir, log)
    start(bin_dir, proc_sys)
    assert kept_for(bin_dir)
    (bin_dir / "bwrap").unlink()
    other = tmp_path / "other-bin"
    other.mkdir()
    fake_bwrap(other, log)
    try:
        start(other, proc_sys)  # a probe that worked keeps its answer, and forgets the old
        assert kept_for(other)
        assert not kept_for(bin_dir)
    finally:
        forget(other)


def test_the_sandbox_check_probes_again_whatever_was_kept(bin_dir: Path, tmp_path: Path) -> None:
    """`tether sandbox` diagnoses what holds now: it runs bwrap even when a start kept a
    success (and keeps its own for the next start)."""
    log = tmp_path / "runs.log"
    fake_bwrap(bin_dir, log)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "HOME": str(tmp_path),
        "TETHER_HOME": str(tmp_path / "th"),
    }
    for _ in range(2):
        subprocess.run(
            [sys.executable, "-m", "tether", "sandbox", "check"],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
        )
    assert log.read_text().splitlines().count("--help") == 2
