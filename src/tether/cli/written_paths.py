"""A word the user wrote (in a message, a pasted text, an `@` mention, a command's argument)
taken as a path: the one place the REPL does so. Nothing here raises or blocks, whatever the
word: `~5` or `~nobody` (no such user: not a path), a link that loops, a name longer than the
system takes (a pasted base64 JPEG starts `/9j/`), a NUL byte, a directory that may not be
read. What a path names is found by its status alone; only a regular file is ever opened
(a FIFO, a terminal or a socket is never read), and without waiting."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Literal

BEFORE_A_PATH = "([{<`'\"\uff08\u300c\u300e\u3010"
"""What opens around a path written in a sentence: `(see /a/b)`, `` `/a/b` ``, not its name
(and the full-width parenthesis and CJK brackets)."""
AFTER_A_PATH = ",.;:!?)]}>`'\"\u3002\uff0c\u3001\uff1b\uff1a\uff01\uff1f\uff09\u300d\u300f\u3011"
"""Punctuation that follows a path in a sentence, not its name; the full-width forms too (the
ideographic full stop and comma, the full-width semicolon, colon, marks and parenthesis, the
closing CJK brackets)."""

Kind = Literal["file", "directory", "other"]
"""What a path names: a regular file, a directory, or something else (a FIFO, a device, a
socket); None where it names nothing that can be looked at."""


def written_path(word: str, base: Path) -> Path | None:
    """The absolute, resolved path `word` names from `base` (`~` and `~user/` expanded), or
    None: the word cannot name a path (`~5`, an unknown `~user`, a NUL byte, a link that
    loops, a name too long)."""
    found = path_or_why(word, base)
    return found if isinstance(found, Path) else None


def path_or_why(word: str, base: Path) -> Path | str:
    """`written_path`, or why the word names no path, to tell the user."""
    if not word:
        return "no path given"
    if "\0" in word:
        return "a path holds no NUL byte"
    word = home_expanded(word)
    if word.startswith("~"):
        return word
    try:
        path = (base / word).resolve()
    except RuntimeError:  # a link that loops, before Python 3.13
        return "a symbolic link on the way loops"
    except (OSError, ValueError) as e:
        return why_not(e)
    reason = status_error(path)
    return path if reason is None or "No such file" in reason else reason


def home_expanded(word: str) -> str:
    """`word` with a leading `~` or `~user` expanded, or, when it names no home (`~5`, an
    unknown `~user`), why, starting with that `~` (os.path.expanduser leaves such a word as it
    is where Path.expanduser raises)."""
    if not word.startswith("~"):
        return word
    expanded = os.path.expanduser(word)
    if expanded.startswith("~"):
        home = word.split("/", 1)[0]
        return f"{home} names no home: there is no user named {home[1:]!r}"
    return expanded


def status_error(path: Path) -> str | None:
    """Why the status of `path` cannot be had (None: it can)."""
    try:
        os.stat(path)
    except (OSError, ValueError) as e:
        return why_not(e)
    return None


def why_not(error: OSError | ValueError) -> str:
    """The system's reason, as a person reads it: `File name too long`, `Permission denied`."""
    return (error.strerror if isinstance(error, OSError) else None) or str(error)


def kind_of(path: Path) -> Kind | None:
    """What `path` names, by its status (links followed); None: nothing there, or nothing that
    can be looked at (no permission, a loop, a name too long)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return "file"
    return "directory" if stat.S_ISDIR(mode) else "other"


def first_bytes(path: Path, count: int) -> bytes | None:
    """The first `count` bytes of the regular file `path`, or None: it is not one, or it
    cannot be read. Opened without waiting, and checked once open, so a FIFO put in its
    place after a look is not read either."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, count)
    except OSError:
        return None
    finally:
        os.close(fd)
