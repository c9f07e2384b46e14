"""WebSearch: a web search through the session's model, with Claude Code's input (`query`,
`allowed_domains`, `blocked_domains`) and result (`query`, `results`, `durationSeconds`). As in
Claude Code, the search itself is the Anthropic Messages API's `web_search` server tool; with
another provider there is none, and the tool says so."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from tether.protocol import ToolError
from tether.tools.base import ToolOutput, tool
from tether.tools.context import ToolContext
from tether.tools.web_searcher import SearchHits
from tether.web_hosts import canonical_host


class WebSearchInput(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    query: Annotated[str, StringConstraints(strip_whitespace=True, min_length=2)] = Field(
        description="The search query."
    )
    allowed_domains: list[str] | None = Field(
        default=None, description="Only include results from these domains."
    )
    blocked_domains: list[str] | None = Field(
        default=None, description="Never include results from these domains."
    )


@tool("WebSearch", read_only=True)
async def web_search(ctx: ToolContext, args: WebSearchInput) -> ToolOutput:
    """Search the web and use the results to inform answers: for current events and anything
    newer than what you know.

    - The result lists each page found as a markdown link, with the search's own summary.
    - After answering from it, list the sources used, as markdown links, under "Sources:".
    - `allowed_domains` keeps only those sites; `blocked_domains` leaves sites out (not both).
    """
    if ctx.web_search is None:
        raise ToolError(f"WebSearch is not available: {ctx.web_search_refusal}.")
    if args.allowed_domains and args.blocked_domains:
        raise ToolError("Give allowed_domains or blocked_domains, not both.")
    allowed = _domains(args.allowed_domains or (), "allowed_domains")
    blocked = _domains(args.blocked_domains or (), "blocked_domains")
    started = time.monotonic()
    findings = await ctx.web_search(args.query, allowed, blocked)
    if findings.error is not None:
        raise ToolError(f"The web search failed: {findings.error}.")
    lines = [f'Web search results for query: "{args.query}"', ""]
    for found in findings.results:
        if isinstance(found, SearchHits):
            links = [{"title": hit.title, "url": hit.url} for hit in found.hits]
            lines.append(f"Links: {json.dumps(links, ensure_ascii=False)}")
        elif found.strip():
            lines.append(found.strip())
        lines.append("")
    if not any(isinstance(found, SearchHits) and found.hits for found in findings.results):
        lines.append("No pages were found.")
        lines.append("")
    lines.append(
        "REMINDER: You MUST include the sources above in your response to the user using "
        "markdown hyperlinks."
    )
    structured = {
        "query": args.query,
        "results": [
            {
                "tool_use_id": found.tool_use_id,
                "content": [{"title": hit.title, "url": hit.url} for hit in found.hits],
            }
            if isinstance(found, SearchHits)
            else found
            for found in findings.results
        ],
        "durationSeconds": round(time.monotonic() - started, 3),
        "searchCount": sum(isinstance(found, SearchHits) for found in findings.results),
    }
    return ToolOutput("\n".join(lines), structured=structured)


def _domains(entries: Sequence[str], field: str) -> tuple[str, ...]:
    """The domains (each perhaps with a path: `example.com/blog`) spelt as hosts are spelt
    for WebFetch's rules (`Example.com.` is `example.com`); ToolError names one that is no
    domain."""
    spelt: list[str] = []
    for entry in entries:
        given = entry.strip()
        given = given.split("://", 1)[1] if "://" in given else given
        host, slash, path = given.partition("/")
        domain = canonical_host(host) if host else None
        if domain is None:
            raise ToolError(f"{entry!r} in {field} is not a domain (like example.com).")
        spelt.append(domain + slash + path)
    return tuple(spelt)
