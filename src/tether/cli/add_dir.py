"""What `/add-dir DIR` adds: the directory DIR names (quoted, or with its spaces escaped, as a
shell takes it), or why nothing is added: no such directory, or one the session can work in
already (the workspace, a directory inside it or inside one added before), as Claude Code
says."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

from tether.cli.written_paths import kind_of, path_or_why


def directory_to_add(
    base: Path, written: str, working: Sequence[Path], added: Sequence[Path]
) -> Path | str:
    """The directory `written` names from `base`, to add; else what to say. `working`: the
    session's working directories (the workspace); `added`: those added already."""
    directory = _directory(base, written)
    if isinstance(directory, str):
        return f"✗ /add-dir {written}: {directory}"
    if directory in added:
        return f"{directory} is already added."
    for place in (*working, *added):
        real = place.resolve()
        if directory.is_relative_to(real):
            return (
                f"{directory} is already accessible within the existing working directory {real}."
            )
    return directory


def _directory(base: Path, written: str) -> Path | str:
    """The directory `written` names from `base`, quoted or with its spaces escaped as a shell
    takes it, or as written; else why it names none."""
    try:
        words = shlex.split(written)
    except ValueError:  # an unclosed quote: the words as typed
        words = []
    directory = path_or_why(words[0] if len(words) == 1 else written, base)
    if isinstance(directory, str):
        return directory
    kind = kind_of(directory)
    if kind is None:
        return "no such directory"
    return directory if kind == "directory" else "not a directory"
