"""Small builders and process checks shared by the hooks tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def command_hook(command: str, **extra: Any) -> dict[str, Any]:
    return {"type": "command", "command": command, **extra}


def on(matcher: str | None, *hooks: dict[str, Any]) -> list[dict[str, Any]]:
    """One matcher group, as a list of groups for an event."""
    group: dict[str, Any] = {"hooks": list(hooks)}
    if matcher is not None:
        group["matcher"] = matcher
    return [group]


def process_gone(pid: int) -> bool:
    """Whether `pid` has exited (a zombie waiting for a parent to reap it counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def wait_until(condition: Callable[[], bool], *, limit_s: float = 20) -> bool:
    """Poll `condition` until it holds or `limit_s` passes; a generous limit, never a timing
    assertion."""
    deadline = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
