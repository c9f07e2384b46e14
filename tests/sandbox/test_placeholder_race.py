"""Placeholders are made by descriptor: a directory on the way swapped for a link while tether
makes them (what a background command in another sandbox can do) does not move them elsewhere.

The swap is planted at the moment tether creates the first entry, through the creating call
itself: the real call runs right after, on the real file system."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tether.sandbox.placeholders import Placeholders
from tether.sandbox.protected import Protected


def _swap_for_link(directory: Path, target: Path) -> None:
    """What the racing command does: the directory moves aside, a link takes its name."""
    directory.rename(directory.with_name(directory.name + ".moved"))
    directory.symlink_to(target)


def _planting(
    monkeypatch: pytest.MonkeyPatch, name: str, plant: Callable[[], None], *, when: int = 0
) -> None:
    """Run `plant` just before the first call of `os.<name>` that creates something."""
    real = getattr(os, name)
    done = False

    def call(*args: Any, **kwargs: Any) -> Any:
        nonlocal done
        creating = name == "mkdir" or (len(args) > 1 and args[1] & os.O_CREAT)
        if creating and not done:
            done = True
            plant()
        return real(*args, **kwargs)

    monkeypatch.setattr(os, name, call)


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path, Placeholders]:
    workspace = tmp_path / "ws"
    outside = tmp_path / "outside"
    (workspace / "vendor").mkdir(parents=True)
    outside.mkdir()
    return workspace, outside, Placeholders(tmp_path / "state.lock")


def test_a_directory_swapped_before_the_first_mkdir_keeps_placeholders_inside(
    monkeypatch: pytest.MonkeyPatch, places: tuple[Path, Path, Placeholders]
) -> None:
    workspace, outside, placeholders = places
    target = workspace / "vendor" / "lib" / ".claude"
    _planting(monkeypatch, "mkdir", lambda: _swap_for_link(workspace / "vendor", outside))
    placeholders.ensure(target, Protected(".claude", True, "", "settings"))
    monkeypatch.undo()
    assert list(outside.iterdir()) == []
    # Made where the directory really was, reached by its descriptor.
    assert (workspace / "vendor.moved" / "lib" / ".claude").is_dir()


def test_a_directory_swapped_before_a_file_placeholder_keeps_it_inside(
    monkeypatch: pytest.MonkeyPatch, places: tuple[Path, Path, Placeholders]
) -> None:
    workspace, outside, placeholders = places
    (workspace / "vendor" / ".git").mkdir()
    target = workspace / "vendor" / ".git" / "commondir"
    _planting(monkeypatch, "open", lambda: _swap_for_link(workspace / "vendor" / ".git", outside))
    placeholders.ensure(target, Protected("commondir", False, ".", "git's pointer"))
    monkeypatch.undo()
    assert list(outside.iterdir()) == []
    assert (workspace / "vendor" / ".git.moved" / "commondir").read_text() == "."


def test_a_link_already_on_the_way_makes_nothing(
    places: tuple[Path, Path, Placeholders],
) -> None:
    workspace, outside, placeholders = places
    (workspace / "vendor").rmdir()
    (workspace / "vendor").symlink_to(outside)
    made = placeholders.ensure(
        workspace / "vendor" / "pkg" / ".mcp.json", Protected(".mcp.json", True, "", "servers")
    )
    assert made is False
    assert list(outside.iterdir()) == []


def test_what_was_made_by_descriptor_is_removed_by_descriptor(
    places: tuple[Path, Path, Placeholders],
) -> None:
    workspace, outside, placeholders = places
    target = workspace / "vendor" / "a" / ".vscode"
    assert placeholders.ensure(target, Protected(".vscode", True, "", "tasks"))
    (outside / "a" / ".vscode").mkdir(parents=True)  # the same names behind a link
    (workspace / "vendor").rename(workspace / "vendor.moved")
    (workspace / "vendor").symlink_to(outside)
    placeholders.remove_unused()
    assert (outside / "a" / ".vscode").is_dir()  # not reached through the link
    assert (workspace / "vendor.moved" / "a" / ".vscode").is_dir()
    (workspace / "vendor").unlink()
    (workspace / "vendor.moved").rename(workspace / "vendor")
    assert placeholders.journal.exists() is False  # nothing ran: the journal went
    placeholders.remove_unused(stale=[target, target.parent])
    assert not (workspace / "vendor" / "a").exists()  # the marked ones, known by their mark
