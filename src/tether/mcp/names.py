"""The names the model sees for MCP tools and prompts: `mcp__<server>__<tool>`, made valid for
the model APIs (letters, digits, `_` and `-`; at most 64 characters) and unique."""

from __future__ import annotations

import hashlib
import re

MAX_NAME_CHARS = 64
"""The model APIs' limit on a tool name."""

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_HASH_CHARS = 8


def exposed_name(server: str, tool: str) -> str:
    """`mcp__<server>__<tool>` with every other character made `_`. A longer name is cut and
    ends in `_` and a short hash of the full name, so two long names that share a start differ."""
    full = f"mcp__{server}__{tool}"
    safe = _UNSAFE.sub("_", full)
    if len(safe) <= MAX_NAME_CHARS:
        return safe
    digest = hashlib.sha256(full.encode()).hexdigest()[:_HASH_CHARS]
    return f"{safe[: MAX_NAME_CHARS - _HASH_CHARS - 1]}_{digest}"


class NameMap:
    """Exposed name -> (server, name as the server calls it). Two names that come out the same
    (`a.b` and `a_b`) are told apart by a counter: the first keeps the plain name."""

    def __init__(self) -> None:
        self._targets: dict[str, tuple[str, str]] = {}
        self._exposed: dict[tuple[str, str], str] = {}

    def add(self, server: str, name: str) -> str:
        """Register a tool (or prompt) and return its exposed name; the same one again for a
        (server, name) registered before."""
        if (known := self._exposed.get((server, name))) is not None:
            return known
        base = exposed_name(server, name)
        exposed = base
        counter = 2
        while exposed in self._targets:
            suffix = f"_{counter}"
            exposed = base[: MAX_NAME_CHARS - len(suffix)] + suffix
            counter += 1
        self._targets[exposed] = (server, name)
        self._exposed[(server, name)] = exposed
        return exposed

    def resolve(self, exposed: str) -> tuple[str, str] | None:
        """The (server, name) behind an exposed name, if there is one."""
        return self._targets.get(exposed)

    def __len__(self) -> int:
        return len(self._targets)
