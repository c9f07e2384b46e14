"""A file run as a program by its path (`./tools/x.sh`, `timeout 5 tools/x.sh`, `git -c
core.fsmonitor=tools/x.sh status`, `find -exec tools/x {} ;`): the kernel runs it by its first
line. With `#!INTERPRETER [ARG]` it runs `INTERPRETER [ARG] FILE ARGS...`; a text file with no
such line is run by a shell (bash runs it itself, execvp by /bin/sh). This module says what a
run file's command line is, so the judge judges it as if it were typed (`sh FILE` reads the
script, `python3 FILE` is judged as python3); a binary program is judged by its name."""

from __future__ import annotations

from pathlib import Path

_HEAD = 256
"""The bytes read of a run file: the kernel reads its `#!` line from the first of them."""


def runs_by_path(word: str) -> bool:
    """Whether a command word names its program by a path (bash does not search PATH)."""
    return "/" in word


def run_line(real: Path, argv: tuple[str, ...]) -> tuple[str, ...] | None:
    """The command line the kernel runs for `argv`, whose program is the file `real`: its
    interpreter's, from a `#!` line; a shell's for a text file without one. None for a
    binary program, or a file that is not there or cannot be read."""
    try:
        with real.open("rb") as file:
            head = file.read(_HEAD)
    except OSError:
        return None
    if head.startswith(b"#!"):
        line = head[2:].split(b"\n", 1)[0].strip(b" \t\r")
        try:
            text = line.decode()
        except UnicodeDecodeError:
            return None
        interpreter, _, arg = text.replace("\t", " ").partition(" ")
        if not interpreter:
            return ("sh", *argv)
        # Linux passes what follows the interpreter as one argument.
        return (interpreter, *((arg.strip(),) if arg.strip() else ()), *argv)
    if b"\0" in head or head.startswith(b"\x7fELF"):
        return None
    return ("sh", *argv)
