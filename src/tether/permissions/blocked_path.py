"""The file a Bash command asked about would change first, as Claude Code names it to an SDK
client (`can_use_tool`'s `blocked_path`): the first file argument of the first command that
writes the files it is given (`rm`, `mkdir`, `touch`...), resolved against the working
directory. A word the shell would expand to what cannot be known names no file."""

from __future__ import annotations

from pathlib import Path

from tether.permissions.engine import expand_home
from tether.permissions.paths import normalize
from tether.permissions.script import Invocation
from tether.permissions.shell import parse_command
from tether.permissions.shell_words import DYN, HERE, HOME, ONE, STAR, program_name
from tether.permissions.writer_commands import WRITER_COMMANDS

_MODE_FIRST = frozenset({"chmod", "chown", "chgrp"})
"""Writers whose first positional is what to set (a mode, an owner), not a file."""

_UNKNOWN = (DYN, HERE, STAR, ONE)


def blocked_path(command: str, cwd: Path, home: Path) -> str | None:
    """The first file `command` writes by a writer's argument, or None."""
    script = parse_command(command)
    if script.problems:
        return None
    for invocation in _every(script.invocations):
        found = _first_file(invocation)
        if found is not None:
            return str(normalize(cwd / expand_home(found.replace(HOME, "~"), home)))
    return None


def _every(invocations: tuple[Invocation, ...]) -> list[Invocation]:
    found: list[Invocation] = []
    for invocation in invocations:
        found.append(invocation)
        found.extend(_every(invocation.inner))
    return found


def _first_file(invocation: Invocation) -> str | None:
    if not invocation.argv:
        return None
    name = program_name(invocation.argv[0])
    spec = WRITER_COMMANDS.get(name)
    if spec is None or spec.files != "write":
        return None
    skip = 1 if name in _MODE_FIRST else 0
    words = iter(invocation.argv[1:])
    options = True
    for word in words:
        if options and word == "--":
            options = False
        elif options and word.startswith("-") and word != "-":
            if word in spec.valued or word in spec.read_valued:
                next(words, None)
        elif skip:
            skip -= 1
        elif any(marker in word for marker in _UNKNOWN) or word == "-":
            return None
        else:
            return word
    return None
