"""WebSearch's search for a session on the Anthropic provider: one request to the session's own
model offering only the Messages API's `web_search` server tool, as Claude Code searches; the
endpoint runs the searches and its answer's search results become the tool's findings."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tether.models.base import Model, ModelRequest, ResponseDone
from tether.models.resolve import ResolvedModel
from tether.protocol import Message, ModelError, TextBlock, ToolError, Usage
from tether.tools.base import Tool

if TYPE_CHECKING:  # their classes load with the first search, not with every session
    from tether.tools.web_searcher import SearchFindings, SearchHits, WebSearcher

SEARCH_TOOL_TYPE = "web_search_20250305"
MAX_SEARCHES = 8
"""Searches the endpoint may run for one WebSearch call (Claude Code's bound)."""
SEARCH_SYSTEM = "You are an assistant for performing a web search tool use"


def searchable(tools: Sequence[Tool], resolved: ResolvedModel) -> list[Tool]:
    """`tools` without WebSearch when the session's model has no server-side search (a
    provider on another wire than the Messages API's): never offered a tool it cannot use."""
    if resolved.provider.wire == "anthropic":
        return list(tools)
    return [t for t in tools if t.name != "WebSearch"]


def no_search_reason(resolved: ResolvedModel) -> str:
    """Why a session on `resolved` has no WebSearch."""
    return (
        f"WebSearch is the Anthropic API's server-side web search; {resolved.provider.name} "
        f"({resolved.model_id}) has none"
    )


def anthropic_web_searcher(
    model: Model, model_id: str, spent: Callable[[Usage], None] | None = None
) -> WebSearcher:
    """The search WebSearch runs through `model` (an Anthropic Messages API model); `spent`
    is told what each search request used (its tokens and the searches the endpoint ran, billed
    apart), so that it counts in the session's cost."""

    async def search(query: str, allowed: Sequence[str], blocked: Sequence[str]) -> SearchFindings:
        server_tool: dict[str, Any] = {
            "type": SEARCH_TOOL_TYPE,
            "name": "web_search",
            "max_uses": MAX_SEARCHES,
        }
        if allowed:
            server_tool["allowed_domains"] = list(allowed)
        if blocked:
            server_tool["blocked_domains"] = list(blocked)
        request = ModelRequest(
            model=model_id,
            system=SEARCH_SYSTEM,
            messages=(
                Message(
                    role="user",
                    content=(TextBlock(text=f"Perform a web search for the query: {query}"),),
                ),
            ),
            server_tools=(server_tool,),
            max_tokens=4096,
        )
        done: ResponseDone | None = None
        try:
            async for event in model.stream(request):
                if isinstance(event, ResponseDone):
                    done = event
        except ModelError as e:
            raise ToolError(f"The web search failed: {e}") from None
        if done is None:
            raise ToolError("The web search failed: the model's answer ended early.")
        if spent is not None:
            spent(done.usage)
        return findings_of(done)

    return search


def findings_of(done: ResponseDone) -> SearchFindings:
    """The searches in an answer (its `web_search_tool_result` blocks), then its text."""
    from tether.tools.web_searcher import SearchFindings, SearchHit, SearchHits

    results: list[SearchHits | str] = []
    error: str | None = None
    for block in done.server_blocks:
        if block.get("type") != "web_search_tool_result":
            continue
        content = block.get("content")
        if isinstance(content, dict):  # {"type": "web_search_tool_result_error", ...}
            code = content.get("error_code")  # pyright: ignore[reportUnknownMemberType]
            error = str(code) if code else "an error without a code"  # pyright: ignore[reportUnknownArgumentType]
            continue
        hits = tuple(
            SearchHit(str(item.get("title", "")), str(item.get("url", "")))  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
            for item in (content if isinstance(content, list) else [])  # pyright: ignore[reportUnknownVariableType]
            if isinstance(item, dict)
        )
        results.append(SearchHits(str(block.get("tool_use_id", "")), hits))
    text = "".join(b.text for b in done.message.content if isinstance(b, TextBlock))
    if text.strip():
        results.append(text)
    return SearchFindings(tuple(results), error if not results else None)
