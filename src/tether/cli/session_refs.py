"""Which session `--session REF` means, the same for `tether events tail` and `tether cost`:
the session whose id is REF, else the one whose id starts with it (the 8 characters `events
tail` prints are enough); an empty REF, or one that starts several ids, is refused with the
ids it could be."""

from __future__ import annotations

from collections.abc import Iterable

SHOWN = 5
"""Candidates named when a reference is ambiguous."""


class SessionRefError(ValueError):
    """A `--session` value that names no one session; the message says why."""


def check_ref(ref: str) -> None:
    """`SessionRefError` when `ref` is blank (it would start every id)."""
    if not ref.strip():
        raise SessionRefError(f"--session {ref!r}: give a session id, or its first characters")


def resolve_session(ref: str, known: Iterable[str]) -> str | None:
    """The one id of `known` that `ref` names, or None when none does."""
    check_ref(ref)
    ids = set(known)
    if ref in ids:
        return ref
    matches = sorted(i for i in ids if i.startswith(ref))
    if len(matches) > 1:
        named = ", ".join(matches[:SHOWN])
        more = f" and {len(matches) - SHOWN} more" if len(matches) > SHOWN else ""
        raise SessionRefError(
            f"--session {ref!r} is ambiguous: it starts {len(matches)} sessions' ids "
            f"({named}{more}); give more of it"
        )
    return matches[0] if matches else None
