"""The clean-up after a killed run touches only what is certainly that run's: processes that
carry its marker or belong to a recorded group whose leader is the process recorded (a reused
pid is never killed), temporary files with tether's names (never through a link), and a
scratch directory right below tether's scratch root."""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tether.processes import unmarked
from tether.tools.run_record import (
    MARKER_VARIABLE,
    RunRecord,
    process_start,
    reap_dead_runs,
    scratch_root,
)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _gone(pid: int) -> bool:
    for _ in range(1000):
        if not _alive(pid):
            return True
        time.sleep(0.01)
    return False


@pytest.fixture(autouse=True)
def own_marker() -> Iterator[None]:
    """A record marks this process's environment while it lives; one a test leaves open (as
    if killed) must not mark the next test's children."""
    before = os.environ.get(MARKER_VARIABLE)
    yield
    if before is None:
        os.environ.pop(MARKER_VARIABLE, None)
    else:
        os.environ[MARKER_VARIABLE] = before


@pytest.fixture
def sleepers() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()


def _sleep(started: list[subprocess.Popen[bytes]], **env: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        ["sleep", "600"], start_new_session=True, env={**unmarked(os.environ), **env}
    )
    started.append(process)
    for _ in range(1000):  # until exec has replaced the environment
        if Path(f"/proc/{process.pid}/cmdline").read_bytes().startswith(b"sleep"):
            break
        time.sleep(0.005)
    return process


def _dead(record: RunRecord) -> None:
    """As if its owner had been killed: the lock goes, the record stays."""
    assert record._fd is not None
    os.close(record._fd)
    record._fd = None


def test_only_processes_certainly_of_the_dead_run_are_killed(
    tmp_path: Path, sleepers: list[subprocess.Popen[bytes]]
) -> None:
    home = tmp_path / "home"
    record = RunRecord.start(home, scratch_dir=scratch_root(home) / "s1", session_id="s1")
    marked = _sleep(sleepers, **record.environment())
    grouped = _sleep(sleepers)
    record.process_group(grouped.pid)  # recorded with its true start time: the run's
    reused = _sleep(sleepers)
    start = process_start(reused.pid)
    assert start is not None
    # A group recorded with another start time: the pid now belongs to another process.
    record._append({"group": reused.pid, "start": start - 1})
    other_run = _sleep(sleepers, **{MARKER_VARIABLE: "another-run"})
    _dead(record)

    [reaped] = reap_dead_runs(home)
    assert reaped.killed == 2
    assert _gone(marked.pid)
    assert _gone(grouped.pid)
    assert _alive(reused.pid)
    assert _alive(other_run.pid)
    assert list((home / "runs").iterdir()) == []


def test_only_temporary_files_with_tethers_names_are_removed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    record = RunRecord.start(home, scratch_dir=scratch_root(home) / "s1", session_id="s1")
    temp = workspace / ".a.txt.0123abcd.tether-tmp"
    temp.write_text("half")
    user_file = workspace / "notes.txt"
    user_file.write_text("keep")
    target = workspace / "precious.txt"
    target.write_text("keep")
    link = workspace / ".b.txt.89abcdef.tether-tmp"
    link.symlink_to(target)
    for path in (temp, user_file, link, workspace / ".gone.txt.00000000.tether-tmp"):
        record.temp_file(path)
    _dead(record)

    [reaped] = reap_dead_runs(home)
    assert reaped.temp_files == [temp]
    assert sorted(p.name for p in workspace.iterdir()) == [
        ".b.txt.89abcdef.tether-tmp",
        "notes.txt",
        "precious.txt",
    ]
    assert target.read_text() == "keep"
    assert reaped.notice() == (
        "an earlier tether (pid "
        f"{os.getpid()}, session s1) was killed without cleaning up: removed 1 half-written "
        "temporary file(s)."
    )


def test_only_a_scratch_directory_below_the_scratch_root_is_removed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    elsewhere = tmp_path / "project"
    elsewhere.mkdir()
    (elsewhere / "file.txt").write_text("keep")
    record = RunRecord.start(home, scratch_dir=elsewhere, session_id="s1")
    _dead(record)
    [reaped] = reap_dead_runs(home)
    assert not reaped.scratch_removed
    assert (elsewhere / "file.txt").read_text() == "keep"

    scratch = scratch_root(home) / "s2"
    (scratch / "sub").mkdir(parents=True)
    (scratch / "sub" / "log").write_text("x")
    (scratch / "link").symlink_to(elsewhere)
    record = RunRecord.start(home, scratch_dir=scratch, session_id="s2")
    _dead(record)
    [reaped] = reap_dead_runs(home)
    assert reaped.scratch_removed
    assert not scratch.exists()
    assert (elsewhere / "file.txt").read_text() == "keep"  # the link was not followed


def test_a_live_run_and_a_torn_record_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    live = RunRecord.start(home, scratch_dir=scratch_root(home) / "live", session_id="live")
    (scratch_root(home) / "live").mkdir(parents=True)
    dead = RunRecord.start(home, scratch_dir=scratch_root(home) / "dead", session_id="dead")
    assert dead._fd is not None
    os.write(dead._fd, b'{"tmp": "/nowhere/.x.0123abcd.tether-t')  # cut by the kill
    _dead(dead)
    [reaped] = reap_dead_runs(home)
    assert (reaped.session, reaped.temp_files) == ("dead", [])
    assert [p.name for p in (home / "runs").iterdir()] == [live.path.name]
    assert (scratch_root(home) / "live").is_dir()
    first_line = json.loads(live.path.read_text().splitlines()[0])
    assert first_line["pid"] == os.getpid()
    live.close()
    assert not (scratch_root(home) / "live").exists()
    assert list((home / "runs").iterdir()) == []


def test_every_child_carries_the_marker_and_a_handed_over_runs_go_on_in_the_next_run(
    tmp_path: Path, sleepers: list[subprocess.Popen[bytes]]
) -> None:
    """A child started with this process's environment carries the run's marker (a hook or
    a helper given no marker of its own was not found after a kill). `/clear` hands its run's
    processes (its MCP servers) to the next run: not stopped at its end, stopped when the next
    run is killed."""
    home = tmp_path / "home"
    outer = os.environ.get(MARKER_VARIABLE)
    first = RunRecord.start(home, scratch_dir=scratch_root(home) / "s1", session_id="s1")
    inherited = subprocess.Popen(["sleep", "600"], start_new_session=True)
    sleepers.append(inherited)
    first.close()
    assert _gone(inherited.pid)  # carried the marker without being given it

    first = RunRecord.start(home, scratch_dir=scratch_root(home) / "s1", session_id="s1")
    kept = subprocess.Popen(["sleep", "600"], start_new_session=True)
    sleepers.append(kept)
    handed = first.hand_over()
    assert first.close() == 0
    assert _alive(kept.pid)
    assert os.environ.get(MARKER_VARIABLE) == outer  # given back as it was
    second = RunRecord.start(home, scratch_dir=scratch_root(home) / "s2", session_id="s2")
    second.adopt(handed)
    _dead(second)
    [reaped] = reap_dead_runs(home)
    assert reaped.killed == 1
    assert _gone(kept.pid)


@pytest.mark.parametrize("marker", ["", "x", "TETHER_RUN", None, 7])
def test_a_record_whose_marker_is_empty_or_malformed_signals_nobody(
    tmp_path: Path, sleepers: list[subprocess.Popen[bytes]], marker: object
) -> None:
    """Fail closed: a damaged or forged record names no process for certain, not even by a
    group it lists (an empty marker matched every `TETHER_RUN=` process before)."""
    home = tmp_path / "home"
    (home / "runs").mkdir(parents=True)
    innocent = _sleep(sleepers, **{MARKER_VARIABLE: ""})
    grouped = _sleep(sleepers)
    start = process_start(grouped.pid)
    owner = {"pid": 2**22 + 1, "start": 1, "session": "s", "scratch": "", "marker": marker}
    lines = [owner, {"adopted": ""}, {"group": grouped.pid, "start": start}]
    (home / "runs" / "forged.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))

    [reaped] = reap_dead_runs(home)
    assert reaped.killed == 0
    assert _alive(innocent.pid)
    assert _alive(grouped.pid)


@pytest.mark.parametrize("group", [2**31, 2**63, 2**70, -5, 0, 1, 2**22 + 1])
def test_a_record_naming_no_possible_group_is_reaped_not_raised(
    tmp_path: Path, sleepers: list[subprocess.Popen[bytes]], group: int
) -> None:
    """A damaged group line (no pid could be it) raised OverflowError at every start, and the
    record, never removed, made tether unusable for that home."""
    home = tmp_path / "home"
    (home / "runs").mkdir(parents=True)
    marker = uuid.uuid4().hex  # its own: a shared one was killed by the same test elsewhere
    marked = _sleep(sleepers, **{MARKER_VARIABLE: marker})
    owner = {"pid": 2**22 + 1, "start": 1, "session": "s", "scratch": "", "marker": marker}
    lines = [owner, {"group": group, "start": 1}, {"group": 2, "start": 2**70}]
    (home / "runs" / "damaged.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))

    [reaped] = reap_dead_runs(home)
    assert reaped.killed == 1  # the marked process, and nothing for the damaged lines
    assert _gone(marked.pid)
    assert not (home / "runs" / "damaged.jsonl").exists()


def test_a_recorded_group_whose_leader_has_gone_is_stopped_member_by_member(
    tmp_path: Path, sleepers: list[subprocess.Popen[bytes]]
) -> None:
    """A hook's child that cleared its environment outlives the hook (the group's leader)."""
    home = tmp_path / "home"
    record = RunRecord.start(home, scratch_dir=scratch_root(home) / "s1", session_id="s1")
    leader = subprocess.Popen(
        ["sh", "-c", "env -i sleep 600 & echo $!"],
        start_new_session=True,
        stdout=subprocess.PIPE,
        env=unmarked(os.environ),
    )
    record.process_group(leader.pid)
    assert leader.stdout is not None
    with leader.stdout:
        member = int(leader.stdout.readline())
    leader.wait()
    _dead(record)
    try:
        [reaped] = reap_dead_runs(home)
        assert reaped.killed == 1
        assert _gone(member)
    finally:
        if _alive(member):
            os.kill(member, 9)
