"""What a session file's parent links look like when tether wrote it whole."""

from __future__ import annotations

from typing import Any


def message_chain_problem(entries: list[dict[str, Any]]) -> str | None:
    """Messages chain to one another; every other entry hangs off the newest message."""
    newest = None
    for entry in entries:
        if entry["parentUuid"] != newest:
            return f"{entry['type']} {entry['uuid']} has parent {entry['parentUuid']}, not {newest}"
        if entry["type"] in ("user", "assistant"):
            newest = entry["uuid"]
    return None
