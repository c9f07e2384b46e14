"""What the memory tools need of the project's memory, as a protocol: the memory itself
(`tether.memory`) is a service beside the tools, joined to them by whoever builds the session."""

from __future__ import annotations

from typing import Final, Literal, Protocol

from tether.slotted import Slotted


class MemoryHit(Slotted):
    __slots__ = ("by", "id", "saved", "tags", "text")
    id: Final[int | None]
    """None: a memory kept aside while the memory could not be used, not in it yet."""
    text: Final[str]
    tags: Final[tuple[str, ...]]
    by: Final[Literal["words", "meaning", "both", "correction"]]
    """How it was found: its words matched the query's, its meaning was near, or both; or
    as a newer memory correcting one the query found."""
    saved: Final[str | None]
    """When it was saved (or rewritten by a replacement), ISO 8601 in UTC; None when unknown.
    Shown to the model, so that of two memories that disagree it can tell the current one."""

    def __init__(
        self,
        id: int | None,
        text: str,
        tags: tuple[str, ...],
        by: Literal["words", "meaning", "both", "correction"],
        saved: str | None = None,
    ) -> None:
        self.id = id
        self.text = text
        self.tags = tags
        self.by = by
        self.saved = saved


class Hits(list[MemoryHit]):
    """A search's memories, best first; `words_only`: why they are ranked by their words
    only though memory searches by meaning too (its query could not be embedded), else None."""

    def __init__(self, hits: list[MemoryHit], words_only: str | None = None) -> None:
        super().__init__(hits)
        self.words_only = words_only


NearMemory = tuple[int, str, float]
"""A memory near a new one by meaning: its id, its text, their cosine similarity."""


class Saved(Slotted):
    """Where a memory was kept: in the memory under `id`, or, when the memory could not be
    used, whole in the file `kept_in`, added to the memory once it can be (`why` it could not).
    `id` and `why` both: kept by its words only, its meaning added later (`why` not now).
    `already`: the same text was saved before, as `id`. `replaced`: the text of the memory
    the saver said this one replaces (now `id`, or removed when the same text was `id`
    already); `not_found`: the id it named, not in the memory. `near`: other memories near
    the new one by meaning, which it may replace."""

    __slots__ = ("already", "id", "kept_in", "near", "not_found", "replaced", "why")
    id: Final[int | None]
    kept_in: Final[str | None]
    why: Final[str | None]
    already: Final[bool]
    replaced: Final[str | None]
    not_found: Final[int | None]
    near: Final[tuple[NearMemory, ...]]

    def __init__(
        self,
        id: int | None,
        kept_in: str | None = None,
        why: str | None = None,
        *,
        already: bool = False,
        replaced: str | None = None,
        not_found: int | None = None,
        near: tuple[NearMemory, ...] = (),
    ) -> None:
        self.id = id
        self.kept_in = kept_in
        self.why = why
        self.already = already
        self.replaced = replaced
        self.not_found = not_found
        self.near = near


class MemoryIndex(Protocol):
    """The project's memories. `search` raises `ToolError` when the memory cannot be used (a
    damaged file), with what to do; `save` then keeps the text elsewhere and says where,
    raising only when it could be kept nowhere. An embedding that cannot be made is no such
    failure: memory goes on by words (`Hits.words_only`, `Saved.why`)."""

    async def save(self, text: str, tags: tuple[str, ...], replaces: int | None = None) -> Saved:
        """Keep `text`; `replaces`: the id of the memory it corrects or supersedes, which
        becomes this text (never one chosen by similarity alone)."""
        ...

    async def search(self, query: str, limit: int) -> Hits:
        """The memories that match `query` by meaning or by words, best first."""
        ...


def render_hits(hits: list[MemoryHit]) -> str:
    """Memories as the model reads them, one a paragraph."""
    lines: list[str] = []
    for hit in hits:
        tags = f" [{', '.join(hit.tags)}]" if hit.tags else ""
        lines.append(f"{memory_name(hit)}{tags}: {hit.text}")
    return "\n\n".join(lines)


def memory_name(hit: MemoryHit) -> str:
    """How the model is told of a memory: by its id, or as one kept aside (the memory could
    not be used when it was saved; it is added once it can be); with when it was saved."""
    name = f"Memory {hit.id}" if hit.id is not None else "Memory kept aside, not yet in the memory"
    return name if hit.saved is None else f"{name} (saved {saved_minute(hit.saved)})"


def saved_minute(saved: str) -> str:
    """An ISO 8601 UTC time to the minute, as people read it (`2026-12-05 22:41 UTC`); as it is
    when it is no such time."""
    day, _, time = saved.partition("T")
    if len(day) != 10 or len(time) < 5:
        return saved
    return f"{day} {time[:5]} UTC"
