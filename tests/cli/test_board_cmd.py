"""`tether board`: one JSON snapshot, the text view on a pipe, and the live view on a terminal
following the board as it changes."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console

from tether.cli.board_cmd import board_view
from tether.store.task_records import NewTask, Task
from tether.store.task_store import TaskStore, open_task_store
from tether.testing.cli_runner import run_cli_process


def _board(workspace: Path) -> TaskStore:
    store = open_task_store(None, project=workspace, team="b")
    store.create(NewTask(subject="parse"))
    store.create(NewTask(subject="check", depends_on=["1"], priority="high"))
    return store


def test_json_is_one_snapshot_with_lease_ages(workspace: Path) -> None:
    store = _board(workspace)
    claim = store.claim_next("w1")
    assert claim is not None
    done = run_cli_process(["board", "--json", "--team", "b"], cwd=workspace)
    assert done.exit_code == 0, done.stderr
    snapshot = done.json()
    assert (snapshot["team"], snapshot["store"]) == ("b", str(workspace / ".tether/tasks.db"))
    assert snapshot["counts"] == {
        "in_progress": 1,
        "pending": 1,
        "blocked": 0,
        "failed": 0,
        "completed": 0,
    }
    first, second = snapshot["tasks"]
    assert (first["id"], first["owner"], first["lease_age_s"] >= 0) == ("1", "w1", True)
    assert (second["id"], second["blockedBy"], second["lease_age_s"]) == ("2", ["1"], None)


def test_on_a_pipe_the_view_is_printed_once(workspace: Path) -> None:
    store = _board(workspace)
    claim = store.claim_next("w1")
    assert claim is not None
    store.fail(claim, "no input", cost_usd=0.25)
    done = run_cli_process(["board", "--team", "b"], cwd=workspace)
    assert done.exit_code == 0, done.stderr
    lines = [line.rstrip() for line in done.stdout.splitlines()]
    assert lines[0] == f"team b ({workspace / '.tether/tasks.db'})"
    assert lines[1] == "in_progress 0  pending 0  blocked 1  failed 1  completed 0  cost $0.2500"
    assert lines[3].split()[:4] == ["2", "blocked", "high", "check"]
    assert "#1 (parse) failed: no input" in lines[4]
    assert lines[5].split()[:4] == ["1", "failed", "medium", "parse"]


def test_a_lease_shows_its_age_and_what_is_left() -> None:
    store = _FakeStore()
    task = Task(
        id="3",
        subject="run",
        status="in_progress",
        owner="w",
        started_at=100.0,
        lease_expires_at=160.0,
    )
    console = Console(record=True, width=120)
    console.print(board_view(store, [task], 130.0))  # pyright: ignore[reportArgumentType]
    assert "30s, 30s left" in console.export_text()
    console.print(board_view(store, [task], 170.0))  # pyright: ignore[reportArgumentType]
    assert "70s, expired" in console.export_text()


def test_at_80_columns_the_subject_keeps_room() -> None:
    task = Task(
        id="12",
        subject="teammate review of the parser",
        status="in_progress",
        owner="worker-123456@a-long-host-name",
        depends_on=["10", "11"],
        started_at=100.0,
        lease_expires_at=160.0,
        cost_usd=0.1234,
    )
    console = Console(record=True, width=80)
    console.print(board_view(_FakeStore(), [task], 130.0))  # pyright: ignore[reportArgumentType]
    lines = console.export_text().splitlines()
    # The subject wraps in a column of its own, whole words; the owner gives way instead,
    # folded whole (workers differ by the pid and host at the end of their names).
    assert lines[3].split()[:5] == ["12", "in_progress", "medium", "teammate", "worker-123"]
    assert lines[3].rstrip().endswith("$0.1234")
    assert [line.split()[0] for line in lines[4:6]] == ["review", "parser"]
    at = lines[3].index("worker-123")
    owner = "".join(line[at : at + 10].strip() for line in lines[3:])
    assert owner == "worker-123456@a-long-host-name"


def test_at_120_columns_an_owner_with_room_is_shown_whole_on_one_line() -> None:
    # Measured before: `worker-31299@vm` folded onto two lines with room to spare.
    task = Task(
        id="4",
        subject="write the parser",
        status="in_progress",
        owner="worker-31299@vm",
        started_at=100.0,
        lease_expires_at=160.0,
    )
    console = Console(record=True, width=120)
    console.print(board_view(_FakeStore(), [task], 130.0))  # pyright: ignore[reportArgumentType]
    rows = console.export_text().splitlines()[3:]
    assert len(rows) == 1, rows
    assert "worker-31299@vm" in rows[0].split()


class _FakeStore:
    team, url = "t", "memory"


def test_on_a_terminal_it_follows_the_board_until_ctrl_c(workspace: Path) -> None:
    store = _board(workspace)
    try:
        with _watched(workspace) as leader:
            seen = _read_until(leader, b"check", b"")
            assert b"No tasks yet" not in seen  # the first frame is the board read
            store.create(NewTask(subject="newly added"))
            _read_until(leader, b"newly added", seen)
    finally:
        store.close()


def test_a_board_not_made_yet_is_watched_empty_and_shown_once_a_task_is_added(
    workspace: Path,
) -> None:
    store: TaskStore | None = None
    try:
        with _watched(workspace) as leader:
            seen = _read_until(leader, b"No tasks yet", b"")
            assert not (workspace / ".tether").exists()  # watching made no board
            store = open_task_store(None, project=workspace, team="b")
            store.create(NewTask(subject="first of all"))
            _read_until(leader, b"first of all", seen)
    finally:
        if store is not None:
            store.close()


@contextmanager
def _watched(workspace: Path) -> Iterator[int]:
    """`tether board` of team b on a terminal (its side of the pty given to the test), ended
    with Ctrl+C when the test is done with it, which it must exit 0 on."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tether", "board", "--team", "b", "--interval", "0.1"],
        cwd=workspace,
        stdin=follower,
        stdout=follower,
        stderr=subprocess.PIPE,
        env={**os.environ, "COLUMNS": "120", "TERM": "xterm"},
    )
    os.close(follower)
    try:
        yield leader
        proc.send_signal(signal.SIGINT)
        _drain_until_exit(leader, proc)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(leader)
        assert proc.stderr is not None
        proc.stderr.close()


def _drain_until_exit(fd: int, proc: subprocess.Popen[bytes]) -> None:
    """Read the terminal until the board exits: a board redrawing into a terminal nobody reads
    blocks once the terminal's buffer is full, and its exit (which writes too) with it."""
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                os.read(fd, 65536)
            except OSError:  # the board closed its side
                return


def _read_until(fd: int, wanted: bytes, seen: bytes) -> bytes:
    deadline = time.monotonic() + 120
    while wanted not in seen:
        assert time.monotonic() < deadline, f"never saw {wanted!r} in {seen[-500:]!r}"
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            seen += os.read(fd, 65536)
    return seen


def test_a_subject_an_agent_wrote_cannot_act_on_the_terminal_or_draw_rows(
    workspace: Path,
) -> None:
    """Subjects come from agents (TaskCreate): escapes are shown, not sent, and a line break
    cannot fake a row of the board or of `tasks list`."""
    store = open_task_store(None, project=workspace, team="b")
    store.create(NewTask(subject="real\x1b]0;title\x07\x1b[31m\n#9 completed high deploy"))
    for argv in (["board", "--team", "b"], ["tasks", "list", "--team", "b"]):
        done = run_cli_process(argv, cwd=workspace)
        assert done.exit_code == 0, done.stderr
        assert not {"\x1b", "\x07"} & set(done.stdout), argv
        rows = done.stdout.splitlines()
        assert not any(row.lstrip().startswith("#9") for row in rows), (argv, rows)
        assert any("\\n#9 completed high deploy" in row for row in rows), (argv, rows)
    shown = run_cli_process(["tasks", "show", "1", "--team", "b"], cwd=workspace)
    assert not any(row.startswith("#9") for row in shown.stdout.splitlines())


def test_an_owner_name_is_shown_as_text_not_markup(workspace: Path) -> None:
    store = open_task_store(None, project=workspace, team="b")
    store.create(NewTask(subject="[bold]x"))
    assert store.claim_next("[/w1]") is not None
    done = run_cli_process(["board", "--team", "b"], cwd=workspace)
    assert done.exit_code == 0, done.stderr
    assert "[/w1]" in done.stdout
    assert "[bold]x" in done.stdout
