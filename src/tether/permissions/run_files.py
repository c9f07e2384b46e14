"""A file run as a program by its path (`./tools/x.sh`, `timeout 5 tools/x.sh`, `git -c
core.fsmonitor=tools/x.sh status`, `find -exec tools/x {} ;`): the kernel runs it by its first
line. With `#!INTERPRETER [ARG]` it runs `INTERPRETER [ARG] FILE ARGS...`; a text file with no
such line is run by a shell (bash runs it itself, execvp by /bin/sh). This module says what a
run file's command line is, so the judge judges it as if it were typed (`sh FILE` reads the
script, `python3 FILE` is judged as python3); a binary program is judged by its name, and by
the name of the program a symbolic link to it leads to (`tools/ls -> /usr/bin/curl` is curl)."""

from __future__ import annotations

from pathlib import Path

_HEAD = 256
"""The bytes read of a run file: the kernel reads its `#!` line from the first of them
(BINPRM_BUF_SIZE), the last kept for the line's end."""


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
        if _refused(head):
            return ("sh", *argv)  # the kernel refuses it; bash (and execvp) run it as sh
        line = head[2 : _HEAD - 1].split(b"\n", 1)[0].strip(b" \t\r")
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


def _refused(head: bytes) -> bool:
    """Whether the kernel refuses a `#!` line (ENOEXEC) as Linux 5.1 and later do: one with no
    line end in its first `_HEAD` bytes whose interpreter runs to their end (it may be cut
    short), or that holds only spaces. bash then runs the file as a shell script itself."""
    buffer = head.ljust(_HEAD, b"\0")  # a shorter file ends in NULs
    if b"\n" in buffer:
        return False
    rest = buffer[2 : _HEAD - 1].lstrip(b" \t")
    return not rest or not any(end in rest for end in (b" ", b"\t", b"\0"))
