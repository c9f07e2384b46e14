"""Text helpers shared by Write, Edit and Revert: lossless decoding, the unified diff shown to
the user and the structured patch given to clients, sizes. (How they change files is
`checked_write`.)"""

from __future__ import annotations

import asyncio
import difflib
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any, Final

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
    return "".join(unified_lines(old_lines, new_lines, before, after))


def unified_lines(a: Sequence[str], b: Sequence[str], before: str, after: str) -> Iterator[str]:
    """`difflib.unified_diff(a, b, before, after)` (3 lines of context), in bounded time."""
    started = False
    for group in _grouped_opcodes(a, b):
        if not started:
            started = True
            yield f"--- {before}\n"
            yield f"+++ {after}\n"
        first, last = group[0], group[-1]
        old_range = _unified_range(first[1], last[2])
        new_range = _unified_range(first[3], last[4])
        yield f"@@ -{old_range} +{new_range} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            yield from ("-" + line for line in a[i1:i2])
            yield from ("+" + line for line in b[j1:j2])


async def write_diffs(
    old: str | None, new: str | None, shown: str, *, patch_created: bool = True
) -> tuple[str, list[dict[str, Any]]]:
    """The unified diff and the `structuredPatch` of a change, worked out off the event loop
    (a big file takes a while even in bounded time); a missing side is empty in the patch,
    and a created file has no patch unless `patch_created`."""

    # The texts go to the thread in a box it empties: the pool's worker holds on to its call
    # for a moment after the result is handed over, and must not hold two copies of a file.
    texts = [old, new]

    def both() -> tuple[str, list[dict[str, Any]]]:
        before, after = texts
        texts.clear()
        created = before is None and not patch_created
        patch = [] if created else structured_patch(before or "", after or "")
        return unified_diff(before, after, shown), patch

    return await asyncio.to_thread(both)


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
    hunks: list[dict[str, Any]] = []
    for group in _grouped_opcodes(old_lines, new_lines):
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


_Opcode = tuple[str, int, int, int, int]

# difflib's matching takes time in the number of pairs of equal lines between the two sides,
# and more than that on repeated lines (about 0.4 s at this bound, worst shapes measured):
# past it, lines repeated more than 1% are not matched (difflib's autojunk; the popular lines
# of a 2,000-line file are blank ones), and past it again what is left once the common first
# and last lines are cut is shown as one replacement, which is still a true diff.
EQUAL_PAIRS: Final = 20_000


def _opcodes(a: Sequence[str], b: Sequence[str]) -> list[_Opcode]:
    """`SequenceMatcher(None, a, b).get_opcodes()` in bounded time: the common first and last
    lines are cut in linear time, and difflib matches only what is left, if it can quickly."""
    limit = min(len(a), len(b))
    prefix = 0
    while prefix < limit and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    a_end, b_end = len(a) - suffix, len(b) - suffix
    codes: list[_Opcode] = []
    if prefix:
        codes.append(("equal", 0, prefix, 0, prefix))
    left, right = a[prefix:a_end], b[prefix:b_end]
    autojunk = _matching_mode(left, right)
    if autojunk is None:
        codes.append(("replace", prefix, a_end, prefix, b_end))
    else:
        matcher = difflib.SequenceMatcher(None, left, right, autojunk=autojunk)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            codes.append((tag, i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix))
    if suffix:
        codes.append(("equal", a_end, len(a), b_end, len(b)))
    return codes


def _matching_mode(a: Sequence[str], b: Sequence[str]) -> bool | None:
    """The `autojunk` difflib can match `a` to `b` with within EQUAL_PAIRS; None: neither."""
    if not a or not b:
        return False
    in_b = Counter(b)
    pairs = Counter({line: count * in_b[line] for line, count in Counter(a).items()})
    if pairs.total() <= EQUAL_PAIRS:
        return False
    if len(b) < 200:  # difflib's autojunk leaves shorter sides alone
        return None
    popular = len(b) // 100 + 1
    unpopular = sum(count for line, count in pairs.items() if in_b[line] <= popular)
    return True if unpopular <= EQUAL_PAIRS else None


def _grouped_opcodes(a: Sequence[str], b: Sequence[str], n: int = 3) -> Iterator[list[_Opcode]]:
    """`SequenceMatcher.get_grouped_opcodes(n)` over the bounded `_opcodes`: the changes,
    each hunk with up to `n` lines of context; nothing when `a` and `b` are equal."""
    codes = _opcodes(a, b) or [("equal", 0, 1, 0, 1)]
    if codes[0][0] == "equal":
        _, i1, i2, j1, j2 = codes[0]
        codes[0] = ("equal", max(i1, i2 - n), i2, max(j1, j2 - n), j2)
    if codes[-1][0] == "equal":
        _, i1, i2, j1, j2 = codes[-1]
        codes[-1] = ("equal", i1, min(i2, i1 + n), j1, min(j2, j1 + n))
    group: list[_Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        # An equal run longer than twice the context ends one hunk and starts the next.
        if tag == "equal" and i2 - i1 > n * 2:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _unified_range(start: int, stop: int) -> str:
    # As difflib: "start,length", "start" alone for one line, the line before for none.
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if not length else start + 1},{length}"


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
