"""WebFetch: a web page's readable text for the model, with Claude Code's input (`url`,
`prompt`, `offset`) and result (`bytes`, `code`, `codeText`, `result`, `durationMs`, `url`).

Claude Code runs the page through a small model with `prompt` and returns that model's answer;
tether gives the page's text itself (a window of `MAX_SHOWN_CHARS` at a time) under the prompt,
so the session's own model answers it: no second model, no second bill, nothing of the page
lost to a summary."""

from __future__ import annotations

import time

from pydantic import BaseModel, ConfigDict, Field

from tether.tools.base import ToolOutput, tool
from tether.tools.builtin.web_page import Redirected, check_url, fetch_page
from tether.tools.context import ToolContext

MAX_SHOWN_CHARS = 80_000
"""The most of a page's text one call gives: with the prompt and the notes around it, under
the 100,000 characters a tool result is cut at."""


class WebFetchInput(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    url: str = Field(description="The URL to fetch (https; an http URL is fetched over https).")
    prompt: str = Field(description="What to find out from the page.")
    offset: int | None = Field(
        default=None,
        ge=0,
        description="Character position in the page text to start reading from: to read on "
        "through a page too long for one call, with the value the previous result gave.",
    )


def check_web_fetch(ctx: ToolContext, args: WebFetchInput) -> None:
    """A URL that cannot be fetched is refused before anyone is asked."""
    check_url(args.url)


@tool("WebFetch", read_only=True, check=check_web_fetch)
async def web_fetch(ctx: ToolContext, args: WebFetchInput) -> ToolOutput:
    """Fetch a web page and read it: HTML comes back as Markdown, other text as it is.

    - The result is the page's text under your prompt; answer the prompt from it.
    - An http:// URL is upgraded to https://, as Claude Code does, local addresses included:
      for a server that speaks only plain http (a local dev server), use Bash `curl`.
    - A redirect to another host is not followed: the result names it; fetch that URL with
      another call if it is the page wanted.
    - Long pages come a window at a time; the result says the offset to read on from.
    - Pages over 10 MiB, non-text content and fetches over 60 s are refused.
    - For GitHub repositories, issues and pull requests prefer the `gh` command through Bash.
    """
    check_url(args.url)
    started = time.monotonic()
    fetched = await fetch_page(args.url)
    elapsed_ms = round((time.monotonic() - started) * 1000)
    if isinstance(fetched, Redirected):
        text = (
            f"REDIRECT DETECTED: The URL redirects to a different host.\n\n"
            f"Original URL: {fetched.url}\nRedirect URL: {fetched.location}\n"
            f"Status: {fetched.status}\n\n"
            "The redirect was not followed. To read the page, call WebFetch again with url "
            f'"{fetched.location}" and the same prompt.'
        )
        structured = _structured(0, fetched.status, "Redirect", text, elapsed_ms, args.url)
        return ToolOutput(text, structured=structured)
    start = args.offset or 0
    window = fetched.text[start : start + MAX_SHOWN_CHARS]
    end = start + len(window)
    if start and start >= len(fetched.text):
        body = f"(the page text has {len(fetched.text)} characters; offset {start} is past its end)"
    else:
        body = window
    more = (
        f"\n\n[Page text shown: characters {start} to {end} of {len(fetched.text)}. Call "
        f"WebFetch with offset={end} to read on.]"
        if end < len(fetched.text)
        else ""
    )
    status = "" if fetched.status < 400 else f" (HTTP {fetched.status} {fetched.reason})"
    text = f"Prompt: {args.prompt}\n\nContent of {fetched.url}{status}:\n\n{body}{more}"
    structured = _structured(
        fetched.size, fetched.status, fetched.reason, text, elapsed_ms, args.url
    )
    return ToolOutput(text, structured=structured)


def _structured(
    size: int, code: int, reason: str, result: str, elapsed_ms: int, url: str
) -> dict[str, object]:
    return {
        "bytes": size,
        "code": code,
        "codeText": reason,
        "result": result,
        "durationMs": elapsed_ms,
        "url": url,
    }
