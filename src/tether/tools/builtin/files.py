"""Text helpers shared by Write, Edit and Revert: lossless decoding, the unified diff shown to
the user and the structured patch given to clients, sizes. (How they change files is
`checked_write`.)"""

from __future__ import annotations

import difflib
from typing import Any

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


def structured_patch(old: str, new: str) -> list[dict[str, Any]]:
    """The change as Claude Code's `structuredPatch`: hunks of `oldStart`, `oldLines`,
    `newStart`, `newLines` and `lines` (each prefixed " ", "-" or "+"), 3 lines of context."""
    old_lines = printable(old).split("\n")
    new_lines = printable(new).split("\n")
    # A final newline ends the last line; it does not start another.
    if old_lines[-1] == "":
        old_lines.pop()
    if new_lines[-1] == "":
        new_lines.pop()
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    hunks: list[dict[str, Any]] = []
    for group in matcher.get_grouped_opcodes(3):
        lines: list[str] = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines.extend(" " + line for line in old_lines[i1:i2])
                continue
            lines.extend("-" + line for line in old_lines[i1:i2])
            lines.extend("+" + line for line in new_lines[j1:j2])
        first, last = group[0], group[-1]
        old_count, new_count = last[2] - first[1], last[4] - first[3]
        hunks.append(
            {
                "oldStart": first[1] + 1 if old_count else first[1],
                "oldLines": old_count,
                "newStart": first[3] + 1 if new_count else first[3],
                "newLines": new_count,
                "lines": lines,
            }
        )
    return hunks


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
