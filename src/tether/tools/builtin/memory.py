"""MemorySave and MemorySearch: facts worth keeping about the project, found again in later
sessions by meaning or by words."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from tether.protocol import ToolError
from tether.tools.base import ToolOutput, tool
from tether.tools.context import ToolContext
from tether.tools.memory_index import MemoryIndex, Saved, render_hits

MAX_MEMORY_CHARS = 4_000
MAX_MEMORY_ID = 2**63 - 1
"""The largest id SQLite can hold."""
NonEmpty = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Tag = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, pattern=r"^\S+$")]


class MemorySaveInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    text: Annotated[
        str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_MEMORY_CHARS)
    ] = Field(
        description="The fact to remember, whole and on its own: it will be read without "
        "this conversation ('Run the tests with scripts/test; it starts Redis itself')."
    )
    tags: list[Tag] = Field(
        default_factory=list[str],
        description="Optional single-word labels that help find it ('testing', 'deploy').",
    )
    replaces: int | None = Field(
        default=None,
        ge=1,
        le=MAX_MEMORY_ID,
        strict=True,  # `true` or "2" is no id: lax mode would make them memory 1 and 2
        description="The id of a memory this one corrects or supersedes (the same subject, "
        "now said differently: a port changed, a version upgraded, a preference reversed): "
        "that memory becomes this text, keeping its id. Only for the same subject; a "
        "different fact, however alike, is saved beside it without this.",
    )


class MemorySearchInput(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)

    query: NonEmpty = Field(description="What you want to know, in plain words.")
    limit: int = Field(default=5, ge=1, le=20, description="How many memories at most.")


@tool("MemorySave", read_only=True)
async def memory_save(ctx: ToolContext, args: MemorySaveInput) -> ToolOutput:
    """Remember a fact about this project for later sessions: how to build or test it, where
    things live, the user's preferences, a decision and its reason, a pitfall found the hard
    way.

    Save what a future session would otherwise have to rediscover; not what is in the code or
    its docs already, not the task at hand, and never secrets (keys, passwords, tokens).
    Each memory should stand on its own: later it is found by its meaning or its words,
    without this conversation."""
    saved = await _index(ctx).save(args.text, tuple(args.tags), args.replaces)
    structured: dict[str, object] = {"id": saved.id, "text": args.text, "tags": list(args.tags)}
    if saved.replaced is not None:
        structured["replaced"] = {"id": args.replaces, "text": saved.replaced}
    if saved.near:
        structured["near"] = [{"id": i, "text": t, "similarity": s} for i, t, s in saved.near]
    if saved.not_found is not None:
        structured["notFound"] = saved.not_found
    if saved.already and saved.replaced is not None:
        said = (
            f'Memory {args.replaces} ("{saved.replaced}") is removed: memory {saved.id} '
            "already says this."
        )
        return ToolOutput(said, structured=structured)
    if saved.already:
        structured["already"] = True
        return ToolOutput(
            f"Already saved as memory {saved.id} (the same text); not saved again.",
            structured=structured,
        )
    if saved.id is not None and saved.replaced is not None:
        said = f'Saved as memory {saved.id}, replacing its earlier text: "{saved.replaced}".'
    elif saved.id is not None and saved.not_found is not None:
        said = (
            f"There is no memory {saved.not_found} (removed since?): nothing was replaced. "
            f"Saved as memory {saved.id}."
        )
    elif saved.id is not None:
        said = f"Saved as memory {saved.id}."
    else:
        structured["keptIn"] = saved.kept_in
        pending = ""
        if args.replaces is not None:
            structured["replacesWhenAdded"] = args.replaces
            pending = (
                f" It replaces memory {args.replaces} when it is added: not yet, memory "
                f"{args.replaces} keeps its earlier text until then."
            )
        return ToolOutput(
            f"The memory could not be saved in the project's memory ({saved.why}). Its text "
            f"is kept whole in {saved.kept_in}, and is added to the memory when it can be used "
            f"again; until then MemorySearch finds it by its words only.{pending} Do not save "
            "it again.",
            structured=structured,
        )
    if saved.why is not None:
        said = said.removesuffix(".") + (
            f", by its words only for now ({saved.why}); its meaning is added when the "
            "embedding can be made."
        )
    return ToolOutput(said + _near_note(saved), structured=structured)


def _near_note(saved: Saved) -> str:
    """The memories near a new one or on its subject, for the model to judge: kept side by
    side unless it says the new one replaces one (nothing is replaced on likeness alone)."""
    if not saved.near:
        return ""
    lines = "\n".join(f"- Memory {i}: {text}" for i, text, _ in saved.near)
    return (
        "\n\nSaved before, near in meaning or on the same subject (kept as they are):\n"
        f"{lines}\n\nIf the new memory corrects or supersedes one of these (the same "
        "subject, now different), call MemorySave again with the same text and `replaces` "
        "set to that memory's id: the stale one is then removed. Different facts stay side "
        "by side; do nothing for them."
    )


@tool("MemorySearch", read_only=True)
async def memory_search(ctx: ToolContext, args: MemorySearchInput) -> ToolOutput:
    """Search the memories saved in earlier sessions of this project, by meaning and by words:
    how the project is built, tested and deployed, where things live, the user's preferences,
    past decisions and pitfalls. Search before asking the user something a past session may
    have learnt."""
    hits = await _index(ctx).search(args.query, args.limit)
    structured = [
        {"id": h.id, "text": h.text, "tags": list(h.tags), "matchedBy": h.by}
        | ({"keptAside": True} if h.id is None else {})
        for h in hits
    ]
    note = (
        f"Ranked by words only: the query could not be embedded ({hits.words_only}).\n\n"
        if hits.words_only
        else ""
    )
    if not hits:
        return ToolOutput(note + "No memory matches.", structured=structured)
    return ToolOutput(note + render_hits(hits), structured=structured)


def _index(ctx: ToolContext) -> MemoryIndex:
    if ctx.memory is None:
        raise ToolError("Memory is not available in this session.")
    return ctx.memory
