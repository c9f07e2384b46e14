"""When placeholders go: a removal stops for a command that starts (after the entry it is at),
and what it did not reach stays in the journal for whoever removes next, in any process; a
removal that meets another one at work waits for it rather than giving up."""

from __future__ import annotations

import asyncio
import fcntl
import os
import threading
from pathlib import Path

from tether.sandbox.placeholders import Placeholders
from tether.sandbox.protected import Protected

from .conftest import wait_until

NAMES = [".claude", ".tether", ".vscode", ".idea"]


def _made(tmp_path: Path) -> tuple[Path, Placeholders]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (tmp_path / "state").mkdir()
    placeholders = Placeholders(tmp_path / "state" / "ws.lock")
    held = placeholders.hold()
    for name in NAMES:
        assert placeholders.ensure(workspace / name, Protected(name, True, "", "settings"))
    os.close(held)
    return workspace, placeholders


def test_a_removal_stopped_for_a_command_leaves_the_rest_recorded(tmp_path: Path) -> None:
    workspace, placeholders = _made(tmp_path)
    # A command wants to start once the first placeholder is gone.
    placeholders.remove_unused(stop=lambda: len(os.listdir(workspace)) < len(NAMES))
    assert len(os.listdir(workspace)) == len(NAMES) - 1
    # Another process (an object of its own, the same lock file) finds the rest recorded.
    Placeholders(tmp_path / "state" / "ws.lock").remove_unused()
    assert os.listdir(workspace) == []
    assert not placeholders.journal.exists()


def test_a_removal_asked_for_while_a_command_runs_leaves_everything(tmp_path: Path) -> None:
    workspace, placeholders = _made(tmp_path)
    held = placeholders.hold()  # a sandbox of the workspace runs
    try:
        placeholders.remove_now(just_ended=False)
        assert sorted(os.listdir(workspace)) == sorted(NAMES)
    finally:
        os.close(held)
    placeholders.remove_now(just_ended=False)
    assert os.listdir(workspace) == []


def _waiting_on_a_lock_in(directory: Path) -> bool:
    """Whether a thread of this process waits for a `flock` on a file of `directory`."""
    inodes = {f":{entry.stat().st_ino} " for entry in directory.iterdir()}
    pid = f" {os.getpid()} "
    with open("/proc/locks") as locks:
        waiting = [line for line in locks if "->" in line and pid in line]
    return any(inode in line for line in waiting for inode in inodes)


async def test_a_removal_that_meets_another_at_work_waits_for_it(tmp_path: Path) -> None:
    """The race behind a flaky test: the background removal took the lock a moment before a
    session's start asked for its own, which found the lock taken and returned at once with
    every placeholder still there."""
    workspace, placeholders = _made(tmp_path)
    paused, go = threading.Event(), threading.Event()

    def after_the_first_entry() -> bool:
        if len(os.listdir(workspace)) < len(NAMES):
            paused.set()
            go.wait()
        return False

    background = asyncio.ensure_future(
        asyncio.to_thread(placeholders.remove_unused, stop=after_the_first_entry)
    )
    assert await wait_until(paused.is_set)

    def start() -> list[str]:
        placeholders.remove_unused()  # what a session's start does (`remove_stale`)
        return sorted(os.listdir(workspace))

    starting = asyncio.ensure_future(asyncio.to_thread(start))
    assert await wait_until(lambda: starting.done() or _waiting_on_a_lock_in(tmp_path / "state"))
    go.set()
    assert await starting == []
    await background
    assert not placeholders.journal.exists()


async def test_a_command_waits_for_the_start_s_removal_on_its_thread(tmp_path: Path) -> None:
    """A session's start removes what a killed tether left on a thread of its own; a command
    that starts meanwhile waits until it is done, as if the start had done it itself."""
    workspace, placeholders = _made(tmp_path)
    turn = os.open(placeholders.turn_file, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
    fcntl.flock(turn, fcntl.LOCK_EX)  # another removal at work: the start's must wait
    try:
        placeholders.remove_stale_soon(lambda: [])  # returns at once all the same
        assert sorted(os.listdir(workspace)) == sorted(NAMES)
        claiming = asyncio.ensure_future(asyncio.to_thread(placeholders.claim))
        assert await wait_until(lambda: _waiting_on_a_lock_in(tmp_path / "state"))
        assert not claiming.done()
    finally:
        os.close(turn)
    await claiming
    assert os.listdir(workspace) == []
