"""What WebSearch needs of a search service (`ToolContext.web_search`): a query and domain
limits in, what the search found out. The CLI joins it to a model that searches itself (the
Messages API's `web_search` server tool); tools import no model."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SearchHit:
    title: str
    url: str


@dataclass(frozen=True)
class SearchHits:
    """One search the service ran: its call id and the pages found."""

    tool_use_id: str
    hits: tuple[SearchHit, ...]


@dataclass(frozen=True)
class SearchFindings:
    """The searches run and the service's text about them, in the order given."""

    results: tuple[SearchHits | str, ...]
    error: str | None = None
    """The service's error code for a search it could not run (`max_uses_exceeded`...)."""


WebSearcher = Callable[[str, Sequence[str], Sequence[str]], Awaitable[SearchFindings]]
"""(query, allowed domains, blocked domains) -> findings; raises `ToolError` when it fails."""
