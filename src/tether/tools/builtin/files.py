"""Text helpers shared by Write, Edit and Revert: lossless decoding, the unified diff shown to
the user, sizes. (How they change files is `checked_write`.)"""

from __future__ import annotations

import difflib

from tether.protocol import ToolError

_NO_NEWLINE = "\\ No newline at end of file\n"


def decode_text(data: bytes) -> str:
    """Text that encodes back to exactly `data`: undecodable bytes survive as surrogates."""
    return data.decode("utf-8", errors="surrogateescape")


def encode_text(text: str) -> bytes:
    try:
        return text.encode("utf-8", errors="surrogateescape")
    except UnicodeEncodeError as e:
        message = f"The text has characters that cannot be written as UTF-8: {e.reason}."
        raise ToolError(message) from None


def printable(text: str) -> str:
    """`text` with bytes kept by `decode_text` shown as U+FFFD, safe to display or send."""
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")


def count_lines(text: str) -> int:
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def unified_diff(old: str | None, new: str | None, shown: str) -> str:
    """A git-style unified diff; `None` on a side means the file does not exist there."""
    absolute = shown.startswith("/")
    before = "/dev/null" if old is None else (shown if absolute else f"a/{shown}")
    after = "/dev/null" if new is None else (shown if absolute else f"b/{shown}")
    old_lines = _diff_lines(printable(old or ""))
    new_lines = _diff_lines(printable(new or ""))
    return "".join(difflib.unified_diff(old_lines, new_lines, before, after))


def _diff_lines(text: str) -> list[str]:
    # str.splitlines would also split on \r, \v, \f and friends; a diff is about \n only.
    lines = text.split("\n")
    result = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        result.append(lines[-1] + "\n" + _NO_NEWLINE)
    return result


def human_size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    value = size / 1024
    for unit in ("KiB", "MiB"):
        if value < 1024:
            return f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"
