"""Where automatic compaction starts, as Claude Code has it: the window less the room a reply
may take (its output cap, at most 20,000 tokens) and a 13,000-token buffer. For a 200k window
and the usual caps, 167,000 tokens; for a 1M window, 967,000 (measured: the threshold its
bundled CLI reports and compacts at). `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` (a percentage of the
window less the reply's room) can only bring it earlier, as in Claude Code."""

from __future__ import annotations

import math
from collections.abc import Mapping

REPLY_ROOM_MOST = 20_000
"""The most of the window kept free for the reply, whatever the output cap (Claude Code's)."""
BUFFER_TOKENS = 13_000
"""Tokens left free below the reply's room before compaction starts (Claude Code's)."""
PERCENT_ENV = "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE"
SMALL_WINDOW_SHARE = 5
"""At most a fifth of a window is kept free (which Claude Code's 33,000 is from 165k up)."""


def compact_point(window: int, max_output_tokens: int, percent: float | None = None) -> int:
    """The context, in tokens, at which compaction starts for a model with `window` whose
    replies are capped at `max_output_tokens`; `percent` (0-100] of the window less the
    reply's room, when that comes earlier. What is kept free is at most a fifth of the window:
    Claude Code's 33,000 for its windows (200k and more), 80% used on a smaller one (a local
    model's 32k), where its rule would compact at every turn."""
    reply_room = min(max_output_tokens, REPLY_ROOM_MOST)
    room = window - reply_room
    point = window - min(reply_room + BUFFER_TOKENS, window // SMALL_WINDOW_SHARE)
    if percent is not None and 0 < percent <= 100:
        point = min(math.floor(room * percent / 100), point)
    return point


def percent_override(env: Mapping[str, str]) -> float | None:
    """`CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` as Claude Code reads it: a number in (0, 100], else
    not set."""
    try:
        percent = float(env.get(PERCENT_ENV, "").strip())
    except ValueError:
        return None
    return percent if 0 < percent <= 100 else None
