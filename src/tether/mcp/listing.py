"""What a server connected through the MCP SDK offers: its tools (every page, each checked on
its own by `offerings.check_tool`) and its prompts. A tool tether cannot offer the model is
left out with a problem; the rest still work."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from mcp.client import Client
from mcp.shared.dispatcher import CallOptions
from mcp.types import ListToolsResult, Prompt, Tool
from pydantic import ValidationError

from tether.mcp.failures import describe
from tether.mcp.offerings import MAX_PAGES, Listing, PromptSpec, ToolSpec, check_tools, prompt_spec


class _Paged(Protocol):
    @property
    def next_cursor(self) -> str | None: ...


_Page = TypeVar("_Page", bound=_Paged)
_T = TypeVar("_T")


async def list_offerings(client: Client, server: str) -> Listing:
    """Tools and prompts, as far as the server's capabilities say it has them. A failing tool
    listing raises (the server is of no use without it); a failing prompt listing is a problem."""
    capabilities = client.server_capabilities
    problems: list[str] = []
    tools: list[ToolSpec] = []
    if capabilities.tools is not None:
        listed, unchecked = await _list_tools(client)
        tools, kept, problems = check_tools(server, listed)
        if unchecked:
            _absorb(client, tools, [listed[index] for index in kept])
    prompts: list[PromptSpec] = []
    if capabilities.prompts is not None:
        try:
            listed_prompts = await _list_prompts(client)
            prompts = [
                spec
                for prompt in listed_prompts
                if (spec := prompt_spec(prompt.model_dump(by_alias=True, mode="json"))) is not None
            ]
        except Exception as exc:  # the server's failure is reported, not raised: prompts are extras
            problems.append(
                f'MCP server "{server}": its prompts could not be listed: {describe(exc)}'
            )
    return Listing(tuple(tools), tuple(prompts), tuple(problems))


async def _list_tools(client: Client) -> tuple[list[Mapping[str, Any]], bool]:
    """Every page of `tools/list`, as wire dictionaries, and whether a page was read unchecked.
    The SDK refuses a whole page when one tool in it is invalid; such a page is asked for again
    unchecked, so that `check_tool` leaves out only that tool."""
    tools: list[Mapping[str, Any]] = []
    unchecked = False
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        try:
            page = await client.list_tools(cursor=cursor)
        except ValidationError:
            unchecked = True
            raw = await _unchecked_request(client, "tools/list", cursor)
            items: object = raw.get("tools")
            if not isinstance(items, list):
                raise
            tools.extend(item for item in items if isinstance(item, dict))
            next_cursor = raw.get("nextCursor")
            cursor = next_cursor if isinstance(next_cursor, str) else None
        else:
            tools.extend(
                tool.model_dump(by_alias=True, mode="json", exclude_none=True)
                for tool in page.tools
            )
            cursor = page.next_cursor
        if cursor is None:
            break
    return tools, unchecked


def _absorb(client: Client, tools: list[ToolSpec], raws: list[Mapping[str, Any]]) -> None:
    """Give the session the listing it could not read itself. Before a tool's first call it
    looks up the tool's output schema, and would list the tools again (and fail again) if the
    tool were not known to it. A tool whose other fields it refuses gets no output schema."""
    known: list[Tool] = []
    for spec, raw in zip(tools, raws, strict=True):
        try:
            known.append(Tool.model_validate({**raw, "inputSchema": spec.input_schema}))
        except ValidationError:
            known.append(Tool(name=spec.name, input_schema=dict(spec.input_schema)))
    client.session._absorb_tool_listing(ListToolsResult(tools=known), complete=True)


async def every_page(
    fetch: Callable[[str | None], Awaitable[_Page]], items: Callable[[_Page], Sequence[_T]]
) -> list[_T]:
    """The items of every page of a paged listing (`fetch(cursor)`), up to `MAX_PAGES`."""
    found: list[_T] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await fetch(cursor)
        found.extend(items(page))
        cursor = page.next_cursor
        if cursor is None:
            break
    return found


async def _list_prompts(client: Client) -> list[Prompt]:
    return await every_page(
        lambda cursor: client.list_prompts(cursor=cursor), lambda page: page.prompts
    )


async def _unchecked_request(client: Client, method: str, cursor: str | None) -> dict[str, Any]:
    """A request whose result the SDK does not validate. The SDK has no public way to do
    this: it uses the session's dispatcher and its header stamp, as `send_request` does."""
    session = client.session
    data: dict[str, Any] = {"method": method}
    if cursor is not None:
        data["params"] = {"cursor": cursor}
    opts: CallOptions = {}
    session._stamp(data, opts)
    return await session._dispatcher.send_raw_request(method, data.get("params"), opts)
