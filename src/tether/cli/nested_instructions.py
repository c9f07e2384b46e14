"""A subdirectory's `CLAUDE.md`, told to the model the first time it reads a file there (as
Claude Code does): the system prompt holds those from the repository's root down to where the
session started; the others arrive as a reminder with the tool's result, once per session."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from tether.core.lifecycle import reminder
from tether.protocol import TextBlock
from tether.text_files import INSTRUCTIONS_MAX_CHARS, UnreadableFile, read_instructions, real_path
from tether.tools.context import ToolContext

NAMES = ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")
"""The instruction files of a directory, in the order they are told."""

MAX_CHARS = INSTRUCTIONS_MAX_CHARS
"""The most of one file that is told (the rest is left out, with a note)."""


def nested_instructions(
    context: ToolContext,
    workspace: Path,
    known: Iterable[Path],
    refused: Callable[[Path], bool] | None = None,
    on_told: Callable[[Path, Path], None] | None = None,
) -> Callable[[], list[TextBlock]]:
    """A pending-input source: the instruction files of the directories of the files the
    model has read since it last ran, below `workspace`, not in `known` (already in the
    system prompt), not `refused` (the permission rules deny reading them) and not told
    before. `on_told` is given each file told and the file read that brought it."""
    told = {path.resolve() for path in known}
    seen: set[Path] = set()

    def take() -> list[TextBlock]:
        blocks: list[TextBlock] = []
        for path in list(context.files.reads):
            directory = path.parent
            if directory in seen:
                continue
            seen.add(directory)
            for folder in _below(workspace, directory):
                for name in NAMES:
                    candidate = real_path(folder / name)
                    if candidate in told or not candidate.is_file():
                        continue
                    if refused is not None and refused(candidate):
                        continue
                    told.add(candidate)
                    blocks.append(TextBlock(text=reminder(_told(candidate, workspace))))
                    if on_told is not None:
                        on_told(candidate, path)
        return blocks

    return take


def _below(workspace: Path, directory: Path) -> list[Path]:
    """The directories from just below `workspace` down to `directory`; none outside it."""
    try:
        parts = directory.resolve().relative_to(workspace.resolve()).parts
    except ValueError:
        return []
    return [workspace.joinpath(*parts[: n + 1]) for n in range(len(parts))]


def _told(path: Path, workspace: Path) -> str:
    root = workspace.resolve()
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    try:
        text, _ = read_instructions(path, str(shown))  # cut, with a note, when large
    except UnreadableFile as e:
        return f"{shown} could not be read: it {e.reason}"
    return (
        f"Contents of {shown} (instructions for the files in {shown.parent}/, which apply "
        f"with the project's):\n\n{text}"
    )
