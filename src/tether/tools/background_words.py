"""What BashOutput says of a background command that printed nothing new, apart from the
tool (builtin/background.py) so the headway guard reads it without loading the tool before
its first call."""

from __future__ import annotations

NO_NEW_OUTPUT = "(no new output)"
NO_NEW_MATCHES = "(no new matching lines)"
"""What BashOutput shows when the command printed nothing new (with `filter`: nothing new that
matches)."""


def still_running_with_nothing_new(shown: str) -> bool:
    """Whether a BashOutput result says only that nothing new came and the command runs on."""
    return any(
        shown == f"{nothing}\n\n[Status: running]" for nothing in (NO_NEW_OUTPUT, NO_NEW_MATCHES)
    )
