"""An embeddings endpoint that failed, remembered across processes, so that the next session
does not wait for it again: `$TETHER_HOME/memory/embeddings-down.json`, one entry per
endpoint (its URL without credentials) with why it failed, when, and when to try it again.

The delay doubles with each failure in a row (1 minute, 2, 4, ... at most 10) and an answer
forgets it. A failure of a hurried use (no answer within a session start's short limit) is
remembered as `slow`: only hurried uses skip the endpoint then, and the tools, which wait
longer, go on trying it; an answer to a patient use forgets only a failure that was not
`slow` (the endpoint works, but is still slow for a start). A file that cannot be read or
written is no failure of memory: nothing is known then, and the endpoint is tried."""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

FILE_NAME = "embeddings-down.json"
FIRST_DELAY_S = 60.0
MAX_DELAY_S = 600.0


def health_path(home: Path) -> Path:
    return home / "memory" / FILE_NAME


class Down:
    """Why the endpoint failed, and until when (seconds since the epoch) it is not tried."""

    __slots__ = ("retry_at", "why")

    def __init__(self, why: str, retry_at: float) -> None:
        self.why = why
        self.retry_at = retry_at

    def __str__(self) -> str:
        return f"{self.why}; not tried again before {_clock(self.retry_at)}"


class EndpointHealth:
    """What `path` remembers of the endpoint `key`."""

    def __init__(self, path: Path, key: str) -> None:
        self.path = path
        self.key = key

    def down(self, now: float | None = None, *, hurried: bool = False) -> Down | None:
        """The endpoint's failure, while it is not to be tried again (by a `hurried` use when
        it was only slow); else None."""
        entry = self._entries().get(self.key)
        if not isinstance(entry, dict):
            return None
        if entry.get("slow") is True and not hurried:  # pyright: ignore[reportUnknownMemberType]
            return None
        try:
            why, retry_at = str(entry["why"]), float(entry["retry_at"])  # pyright: ignore[reportUnknownArgumentType]
        except (KeyError, TypeError, ValueError):
            return None
        if retry_at <= (time.time() if now is None else now):
            return None
        return Down(why, retry_at)

    def failed(self, why: str, *, hurried: bool = False) -> None:
        """Remember a failure: not tried again for a while, longer after each in a row; one
        of a `hurried` use only by hurried uses (and never over a failure that was not)."""
        entries = self._entries()
        before = entries.get(self.key)
        count, slow = 0, hurried
        if isinstance(before, dict):
            count = before.get("failures", 0)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
            slow = hurried and before.get("slow") is not False  # pyright: ignore[reportUnknownMemberType]
        failures = (count if isinstance(count, int) else 0) + 1
        now = time.time()
        delay = min(FIRST_DELAY_S * 2 ** min(failures - 1, 16), MAX_DELAY_S)
        entries[self.key] = {
            "why": f"{why} (at {_clock(now)})",
            "failures": failures,
            "retry_at": now + delay,
            "slow": slow,
        }
        self._write(entries)

    def answered(self, *, hurried: bool = False) -> None:
        """The endpoint answered: its failures are forgotten (by a patient use, not its being
        slow for hurried ones)."""
        entries = self._entries()
        entry = entries.get(self.key)
        if entry is None or (isinstance(entry, dict) and entry.get("slow") is True and not hurried):  # pyright: ignore[reportUnknownMemberType]
            return
        del entries[self.key]
        self._write(entries)

    def _entries(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}  # pyright: ignore[reportUnknownVariableType]

    def _write(self, entries: dict[str, Any]) -> None:
        """Replaced whole (a reader never sees half a file); a failure to write is let be."""
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(json.dumps(entries, indent=1), encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError:
            temporary.unlink(missing_ok=True)


def _clock(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).strftime("%H:%M:%S UTC")
