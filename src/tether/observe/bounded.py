"""What a record's payload holds of long text: the event log is a record of what happened
(whose, when, what kind, which call, how it went), not a second copy of the conversation. The
session's transcript (`store/`) holds every tool input and result whole; a string in a
payload longer than `FIELD_CHARS` keeps its first `HEAD_CHARS` and a note of its full size and
SHA-256, so that a record still says what it was about and can be matched with the
transcript. The log, its views, the webhooks and OpenTelemetry all get the same bounded
record."""

from __future__ import annotations

import hashlib
import re
from typing import Any

FIELD_CHARS = 4_096
"""The longest string a payload holds whole (a Bash command, an error, a short result)."""
HEAD_CHARS = 1_024
"""What a longer one keeps of its start."""
CUT = re.compile(r"… \[cut: (?P<chars>[0-9]+) characters, sha256 (?P<sha256>[0-9a-f]{64})\]\Z")
"""The note ending a cut string: the whole string's length and the SHA-256 of its UTF-8."""


def bounded(value: Any) -> Any:
    """`value` (a payload, as JSON gives it) with every string over `FIELD_CHARS` cut; the
    same object when nothing is."""
    if isinstance(value, str):
        return cut(value) if len(value) > FIELD_CHARS else value
    if isinstance(value, dict):
        items: dict[str, Any] = value  # pyright: ignore[reportUnknownVariableType]
        changed = {k: b for k, v in items.items() if (b := bounded(v)) is not v}
        return {**items, **changed} if changed else items
    if isinstance(value, list):
        entries: list[Any] = value  # pyright: ignore[reportUnknownVariableType]
        new = [bounded(v) for v in entries]
        return new if any(n is not o for n, o in zip(new, entries, strict=True)) else entries
    return value


def cut(text: str) -> str:
    """`text`'s head and the note of what it was (`CUT`)."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{text[:HEAD_CHARS]}… [cut: {len(text)} characters, sha256 {digest}]"


def changed_lines(diff: str) -> tuple[int, int]:
    """Lines added and removed by a unified diff (its `---`/`+++` headers left out)."""
    added = removed = 0
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed
