"""A program run by a path that leads into a process's directory (`/dev/fd/5` after `exec
5</usr/bin/curl`, `/proc/self/fd/N`, `/dev/stdin`, `/proc/self/exe`, a link or a `cd` to
one): a descriptor may hold any program, so no rule can tell which runs."""

from __future__ import annotations

from pathlib import Path

from tether.kernel_paths import is_process_path
from tether.permissions.access import FileAccess
from tether.permissions.shell_places import ShellPlaces
from tether.permissions.shell_words import is_literal, readable


def process_program(program: str, places: ShellPlaces, files: FileAccess) -> str:
    """Why running `program` (the command's first word) runs what cannot be seen, or ""."""
    if "/" not in program or not is_literal(program):
        return ""
    for target in places.targets(program):
        if isinstance(target, Path) and any(
            is_process_path(form) for form in files.locate(target).forms
        ):
            return (
                f"runs {readable(program)}, a path into a process's directory (an open file "
                "descriptor, its executable), which may be any program"
            )
    return ""
