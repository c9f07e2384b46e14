"""When placeholders go: a removal stops for a command that starts (after the entry it is at),
and what it did not reach stays in the journal for whoever removes next, in any process."""

from __future__ import annotations

import os
from pathlib import Path

from tether.sandbox.placeholders import Placeholders
from tether.sandbox.protected import Protected

NAMES = [".claude", ".tether", ".vscode", ".idea"]


def _made(tmp_path: Path) -> tuple[Path, Placeholders]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    placeholders = Placeholders(tmp_path / "state.lock")
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
    Placeholders(tmp_path / "state.lock").remove_unused()
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
