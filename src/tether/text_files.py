"""Reading the files tether is configured by (settings, instructions, skills, agents, MCP
configurations, trust answers, the memory file), so that whatever sits at such a path gives one
precise line, never a traceback or a hang: a directory, a link to nothing or to itself, a FIFO
(never opened: reading one waits for a writer forever), a device, a file too large to be
configuration, bytes that are not UTF-8 text, a file that cannot be read.

Each caller decides what the line means: a settings file that cannot be read stops the start
(it may hold deny rules), an instructions file that cannot be read is reported and skipped.

It sits at the bottom layer beside `protocol`, so that every service can use it.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
from pathlib import Path

DEFAULT_LIMIT_BYTES = 8 * 1024 * 1024
"""Configuration larger than this is not read: it would only fill the prompt or the memory."""

INSTRUCTIONS_MAX_CHARS = 40_000
"""Instructions (CLAUDE.md and the like, the memory file, an agent's or a skill's body, a
system prompt file) are cut here: they share the context window with the work, and a file of
megabytes would leave no room for it."""

INSTRUCTIONS_READ_BYTES = 4 * INSTRUCTIONS_MAX_CHARS
"""What is read of an instruction file: past it the text would be cut anyway."""


class UnreadableFile(OSError):
    """Something is at the path, but it cannot be read as a text file; `reason` says why. An
    `OSError`, so that code that already survives a failed read survives this one."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path} {reason}")
        self.path = path
        self.reason = reason


def real_path(path: Path) -> Path:
    """`path` with every link followed, as `Path.resolve` gives it, but never raising: a link
    that leads back to itself (a symbolic link loop) stays as far as it resolves, and reading
    it then gives `read_text_file`'s precise line. Discovery (commands, skills, agents, rules,
    instructions, plugins) names files by this, so that no loop stops a start."""
    return Path(os.path.realpath(path))


def read_text_file(
    path: Path,
    *,
    limit_bytes: int = DEFAULT_LIMIT_BYTES,
    lenient: bool = False,
    nofollow: bool = False,
    truncate: bool = False,
) -> str | None:
    """The file's text, or None when nothing at all is at `path` (not even a link).

    Raises `UnreadableFile` for anything else that is not a readable UTF-8 text file within
    `limit_bytes`. `lenient` replaces bytes that are not UTF-8 (a Markdown file with one bad
    byte is still worth reading) but still refuses binary files (holding NUL bytes).
    `nofollow` and `truncate`: see `read_file_bytes`."""
    data = read_file_bytes(path, limit_bytes=limit_bytes, nofollow=nofollow, truncate=truncate)
    if data is None:
        return None
    # A file read only in part may end within a character: that character is left out.
    final = not (truncate and len(data) == limit_bytes)
    if lenient:
        if b"\x00" in data:
            raise UnreadableFile(path, "is a binary file (it holds NUL bytes), not text")
        return codecs.getincrementaldecoder("utf-8")("replace").decode(data, final=final)
    try:
        return codecs.getincrementaldecoder("utf-8")().decode(data, final=final)
    except UnicodeDecodeError as e:
        raise UnreadableFile(
            path, f"is not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})"
        ) from None


def cut_instructions(
    text: str, shown: str, *, whole_bytes: int | None = None, limit: int = INSTRUCTIONS_MAX_CHARS
) -> tuple[str, str | None]:
    """`text` (instructions read from the file shown as `shown`) and None when it is within
    `limit` characters; else its first `limit` characters, ended by a note saying what was
    left out, and that note (for the user). `whole_bytes`: the file's size, when `text` is
    only the part of it that was read."""
    whole = whole_bytes if whole_bytes is not None else len(text.encode("utf-8", "replace"))
    if len(text) <= limit and (
        whole_bytes is None or len(text.encode("utf-8", "replace")) >= whole
    ):
        return text, None
    kept = text[:limit]
    left = max(whole - len(kept.encode("utf-8", "replace")), 0)
    note = (
        f"{shown} cut at {limit:,} characters: the rest ({_size(left)} of its "
        f"{_size(whole)}) left out"
    )
    return f"{kept}\n[{note}.]", note


def read_instructions(
    path: Path, shown: str, *, lenient: bool = True, nofollow: bool = False
) -> tuple[str | None, str | None]:
    """An instruction file's text, read in part and cut (`cut_instructions`) when it is
    large, and the note saying so; None for the text when nothing is at `path`. Raises
    `UnreadableFile` as `read_text_file`."""
    text = read_text_file(
        path, limit_bytes=INSTRUCTIONS_READ_BYTES, lenient=lenient, nofollow=nofollow, truncate=True
    )
    if text is None:
        return None, None
    if "\x00" in text:  # valid UTF-8, but no instructions: a binary or sparse file
        raise UnreadableFile(path, "is a binary file (it holds NUL bytes), not text")
    try:
        size = os.stat(path).st_size
    except OSError:
        size = None
    return cut_instructions(text, shown, whole_bytes=size)


def read_file_bytes(
    path: Path,
    *,
    limit_bytes: int = DEFAULT_LIMIT_BYTES,
    nofollow: bool = False,
    truncate: bool = False,
) -> bytes | None:
    """The bytes of a regular file, or None when nothing is at `path`; `UnreadableFile`
    otherwise (see `read_text_file`). `truncate` reads the first `limit_bytes` of a larger
    file instead of refusing it. `nofollow` opens `path` (a path already resolved, free of
    links) without following a link, and refuses to read when the file opened is not at
    `path`: a link swapped in for it or for a directory above it since it was judged."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise UnreadableFile(
                path, f"is a link to {os.readlink(path)}, which does not exist"
            ) from None
        return None
    except NotADirectoryError:
        return None  # a parent is a file: nothing can be at this path
    except OSError as e:
        raise UnreadableFile(path, _reason(e)) from None
    _require_regular(path, st)
    if st.st_size > limit_bytes and not truncate:
        raise UnreadableFile(
            path, f"is {_size(st.st_size)}, larger than the {_size(limit_bytes)} read"
        )
    try:
        # Non-blocking: what was swapped for a FIFO since the check must not hang the start.
        flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (os.O_NOFOLLOW if nofollow else 0)
        fd = os.open(path, flags)
    except OSError as e:
        if nofollow and e.errno == errno.ELOOP:
            raise UnreadableFile(path, "was replaced by a link while being read") from None
        raise UnreadableFile(path, _reason(e)) from None
    try:
        _require_regular(path, os.fstat(fd))
        if nofollow and os.readlink(f"/proc/self/fd/{fd}") != str(path):
            raise UnreadableFile(path, "was replaced by a link while being read")
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, min(1 << 20, limit_bytes + 1 - size)):
            size += len(chunk)
            if size > limit_bytes:
                if truncate:
                    chunks.append(chunk[: len(chunk) - (size - limit_bytes)])
                    break
                raise UnreadableFile(path, f"is larger than the {_size(limit_bytes)} read")
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as e:
        raise UnreadableFile(path, _reason(e)) from None
    finally:
        os.close(fd)


def _require_regular(path: Path, st: os.stat_result) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise UnreadableFile(path, "is a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        kind = (
            "a FIFO"
            if stat.S_ISFIFO(st.st_mode)
            else "a socket"
            if stat.S_ISSOCK(st.st_mode)
            else "a device"
        )
        raise UnreadableFile(path, f"is {kind}, not a regular file")


def _reason(error: OSError) -> str:
    if error.errno == errno.ELOOP:
        return "is a link that leads back to itself (a symbolic link loop)"
    if error.errno == errno.EACCES:
        return "cannot be read: permission denied"
    return f"cannot be read: {(error.strerror or str(error)).lower()}"


def _size(size: int) -> str:
    if size < 1024 * 1024:
        return f"{size // 1024} KiB" if size >= 1024 else f"{size} bytes"
    return f"{size / 1024 / 1024:.0f} MiB"
