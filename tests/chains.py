"""What a session file's parent links look like when tether wrote it whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def entries_of(path: Path) -> list[dict[str, Any]]:
    """A session file's entries: its lines, less those that are no entry of the conversation
    (Claude Code's form, no uuid and no parent: the `last-prompt` line after each turn)."""
    lines = [json.loads(line) for line in path.read_bytes().splitlines()]
    return [line for line in lines if "uuid" in line or "parentUuid" in line]


def newest_message(path: Path) -> dict[str, Any]:
    """A session file's last message entry."""
    return next(e for e in reversed(entries_of(path)) if e["type"] in ("user", "assistant"))


def message_chain_problem(entries: list[dict[str, Any]]) -> str | None:
    """Messages chain to one another; every other entry hangs off the newest message. Lines
    that are no entry (no uuid, no parent) are on no chain. A `withdrawn` entry takes its
    message back: it, and what follows, hang off that message's parent."""
    newest = None
    parents: dict[str, str | None] = {}
    for entry in entries:
        if "uuid" not in entry and "parentUuid" not in entry:
            continue
        if entry["type"] == "withdrawn" and entry["withdrawn"] == newest:
            newest = parents[entry["withdrawn"]]
        parents[entry["uuid"]] = entry["parentUuid"]
        if entry["parentUuid"] != newest:
            return f"{entry['type']} {entry['uuid']} has parent {entry['parentUuid']}, not {newest}"
        if entry["type"] in ("user", "assistant"):
            newest = entry["uuid"]
    return None
