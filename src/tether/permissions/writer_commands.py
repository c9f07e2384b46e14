"""The commands that write the files they are given, as data (commands.py takes them in):
their files are checked as writes (outside the workspace: asked), `cp`/`install` read their
sources, `mv`/`ln` move or link them. Only options known to take a value are listed: a flag
taken for one would hide the path after it. `ACCEPT_EDITS_COMMANDS` are the ones acceptEdits
mode runs without asking inside the workspace."""

from __future__ import annotations

from collections.abc import Mapping

from tether.permissions.command_spec import CommandSpec
from tether.permissions.command_spec import names as _s
from tether.permissions.command_spec import words as _names

WRITER_COMMANDS: Mapping[str, CommandSpec] = {
    **dict.fromkeys(_names("rm rmdir unlink tee"), CommandSpec("write")),
    "shred": CommandSpec("write", valued=_s("-n", "-s", "--iterations", "--size")),
    "touch": CommandSpec(
        "write", valued=_s("-d", "-t", "--date"), read_valued=_s("-r", "--reference")
    ),
    "mkdir": CommandSpec("write", valued=_s("-m", "--mode", "--context")),
    "truncate": CommandSpec(
        "write", valued=_s("-s", "--size"), read_valued=_s("-r", "--reference")
    ),
    **dict.fromkeys(
        _names("chmod chown chgrp"),
        CommandSpec("write", valued=_s("--from"), read_valued=_s("--reference")),
    ),
    "cp": CommandSpec(
        "copy",
        valued=_s("-S", "--suffix", "--sparse"),
        write_valued=_s("-t", "--target-directory"),
        recursive=_s("-r", "-R", "-a", "--recursive", "--archive"),
        follows=_s("-L", "--dereference"),
        links=_s("-l", "--link", "-s", "--symbolic-link"),
        symbolic=_s("-s", "--symbolic-link"),
    ),
    "install": CommandSpec(
        "copy",
        valued=_s("-m", "-o", "-g", "--mode", "--owner", "--group"),
        write_valued=_s("-t", "--target-directory"),
    ),
    "mv": CommandSpec(
        "move",
        valued=_s("-S", "--suffix"),
        write_valued=_s("-t", "--target-directory"),
    ),
    "ln": CommandSpec(
        "move",
        valued=_s("-S", "--suffix"),
        write_valued=_s("-t", "--target-directory"),
        symbolic=_s("-s", "--symbolic"),
    ),
    "dd": CommandSpec("dd"),
}
"""Writers by name."""

ACCEPT_EDITS_COMMANDS = frozenset({"mkdir", "touch", "rm", "rmdir", "mv", "cp"})
"""In acceptEdits mode these run without asking when every file they touch is inside the
workspace (sed is left out: its scripts can run commands and write other files)."""
