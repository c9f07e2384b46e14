"""What the memory tools need of the project's memory, as a protocol: the memory itself
(`tether.memory`) is a service beside the tools, joined to them by whoever builds the session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol


@dataclass(frozen=True)
class MemoryHit:
    id: int
    text: str
    tags: tuple[str, ...]
    by: Literal["words", "meaning", "both"]
    """How it was found: its words matched the query's, its meaning was near, or both."""


class MemoryIndex(Protocol):
    """The project's memories. Both methods raise `ToolError` when the memory cannot be used
    (a damaged file, an embedding endpoint down), with what to do."""

    async def save(self, text: str, tags: tuple[str, ...]) -> int:
        """Keep `text`; its id."""
        ...

    async def search(self, query: str, limit: int) -> list[MemoryHit]:
        """The memories that match `query` by meaning or by words, best first."""
        ...
