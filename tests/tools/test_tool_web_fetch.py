"""WebFetch over real HTTP on 127.0.0.1: HTML made Markdown, limits on size and redirects, long
pages a window at a time, and Claude Code's permission rules (`WebFetch(domain:host)`)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from tests.tools.web_pages import Page, web_site
from tether.protocol import ToolUseBlock
from tether.testing import FakeModelServer, text, tool_use
from tether.testing.cli_runner import CliResult
from tether.tools.builtin import builtin_tools
from tether.tools.builtin.web_fetch import MAX_SHOWN_CHARS
from tether.tools.builtin.web_page import MAX_PAGE_BYTES
from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome, ToolRegistry

RunTool = Callable[..., Awaitable[ToolOutcome]]

HTML = Page(
    b"<html><head><title>T</title><style>p{color:red}</style><script>var secret=1</script>"
    b"</head><body><h1>Release notes</h1><p>Version <b>2.0</b> adds <a href='/x'>search</a>."
    b"</p></body></html>",
    headers={"content-type": "text/html; charset=utf-8"},
)


async def test_html_comes_back_as_markdown_under_the_prompt(run_tool: RunTool) -> None:
    with web_site({"/notes": HTML}) as site:
        outcome = await run_tool("WebFetch", url=f"{site.url}/notes", prompt="What is new?")
    assert outcome == ToolOutcome(
        f"Prompt: What is new?\n\nContent of {site.url}/notes:\n\n"
        "# Release notes\n\nVersion **2.0** adds [search](/x).",
        False,
    )


async def test_structured_result_is_claude_codes(ctx: ToolContext) -> None:
    registry = ToolRegistry(builtin_tools())
    with web_site({"/notes": HTML}) as site:
        call = ToolUseBlock(
            id="c1", name="WebFetch", input={"url": f"{site.url}/notes", "prompt": "p"}
        )
        outcome = await registry.run(call, ctx)
    assert outcome.structured is not None
    assert {k: v for k, v in outcome.structured.items() if k != "durationMs"} == {
        "bytes": len(HTML.body),
        "code": 200,
        "codeText": "OK",
        "result": outcome.content,
        "url": f"{site.url}/notes",
    }


async def test_a_redirect_within_the_host_is_followed_one_to_another_host_is_reported(
    run_tool: RunTool,
) -> None:
    pages = {"/old": Page(status=301, headers={"location": "/notes"}), "/notes": HTML}
    with web_site(pages) as site:
        other = site.url.replace("127.0.0.1", "localhost")
        site.pages["/away"] = Page(status=302, headers={"location": f"{other}/notes"})
        followed = await run_tool("WebFetch", url=f"{site.url}/old", prompt="p")
        reported = await run_tool("WebFetch", url=f"{site.url}/away", prompt="p")
        requested = list(site.requested)
    assert followed.content.startswith(f"Prompt: p\n\nContent of {site.url}/notes:\n\n# Release")
    assert reported == ToolOutcome(
        "REDIRECT DETECTED: The URL redirects to a different host.\n\n"
        f"Original URL: {site.url}/away\nRedirect URL: {other}/notes\nStatus: 302\n\n"
        "The redirect was not followed. To read the page, call WebFetch again with url "
        f'"{other}/notes" and the same prompt.',
        False,
    )
    assert requested == ["/old", "/notes", "/away"]  # localhost was never asked


async def test_a_long_page_comes_a_window_at_a_time(run_tool: RunTool) -> None:
    body = "".join(f"line {i:06d}\n" for i in range(20_000))  # 240,000 characters
    page = Page(body.encode(), headers={"content-type": "text/plain"})
    with web_site({"/long": page}) as site:
        first = await run_tool("WebFetch", url=f"{site.url}/long", prompt="p")
        second = await run_tool(
            "WebFetch", url=f"{site.url}/long", prompt="p", offset=MAX_SHOWN_CHARS
        )
    assert first.content.endswith(
        f"[Page text shown: characters 0 to {MAX_SHOWN_CHARS} of {len(body)}. Call WebFetch "
        f"with offset={MAX_SHOWN_CHARS} to read on.]"
    )
    assert body[MAX_SHOWN_CHARS : MAX_SHOWN_CHARS + 20] in second.content


@pytest.mark.parametrize(
    ("page", "error"),
    [
        (
            Page(b"x" * (MAX_PAGE_BYTES + 1), headers={"content-type": "text/plain"}),
            "is larger than the 10 MiB WebFetch reads",
        ),
        (
            Page(b"\x89PNG\r\n", headers={"content-type": "image/png"}),
            "The page is image/png, not text; WebFetch shows only text and HTML.",
        ),
    ],
)
async def test_what_cannot_be_read_is_refused(run_tool: RunTool, page: Page, error: str) -> None:
    with web_site({"/p": page}) as site:
        outcome = await run_tool("WebFetch", url=f"{site.url}/p", prompt="p")
    assert error in outcome.content, outcome.content
    assert outcome.is_error


@pytest.mark.parametrize(
    ("url", "error"),
    [
        ("file:///etc/passwd", "only http and https URLs can be fetched"),
        ("http:///x", "it names no host"),
        ("http://u:pw@127.0.0.1/", "URLs with a user name or password are refused"),
    ],
)
async def test_bad_urls_are_refused_before_any_request(
    run_tool: RunTool, url: str, error: str
) -> None:
    outcome = await run_tool("WebFetch", url=url, prompt="p")
    assert error in outcome.content, outcome.content
    assert outcome.is_error


def test_webfetch_asks_by_default_and_a_domain_rule_allows_it(
    tether: Callable[..., CliResult], model_env: FakeModelServer, workspace: Path
) -> None:
    with web_site({"/notes": HTML}) as site:
        model_env.script(tool_use("WebFetch", url=f"{site.url}/notes", prompt="p"), text("ok"))
        asked = tether("-p", "read it", "--permission-mode", "default")
        model_env.script(tool_use("WebFetch", url=f"{site.url}/notes", prompt="p"), text("ok"))
        allowed = tether(
            "-p",
            "read it",
            "--permission-mode",
            "default",
            "--allowedTools",
            "WebFetch(domain:127.0.0.1)",
        )
        requested = list(site.requested)
    assert asked.exit_code == 0, asked.stderr
    assert allowed.exit_code == 0, allowed.stderr
    denied_result, fetched_result = (model_env.requests[i].tool_results()[0] for i in (1, 3))
    assert "Release notes" not in json.dumps(denied_result)
    assert "# Release notes" in json.dumps(fetched_result)
    assert requested == ["/notes"]


async def test_a_redirect_to_another_spelling_of_the_host_is_followed(run_tool: RunTool) -> None:
    with web_site({"/notes": HTML}) as site:
        here = site.url.replace("127.0.0.1", "localhost")
        there = site.url.replace("127.0.0.1", "LocalHost.")
        site.pages["/old"] = Page(status=301, headers={"location": f"{there}/notes"})
        followed = await run_tool("WebFetch", url=f"{here}/old", prompt="p")
    # Followed, not reported as a redirect to another host (whether `localhost.` then
    # resolves is the machine's resolver's business).
    assert "REDIRECT DETECTED" not in followed.content
    assert f"{there}/notes" in followed.content


@pytest.mark.parametrize(
    ("url", "error"),
    [
        ("https://exam ple.com/", "'exam ple.com' is not a host name or an IP address"),
        ("https://a..b/", "'a..b' is not a host name or an IP address"),
        ("https://evil.example\\.docs.example/", "holds a backslash"),
    ],
)
async def test_a_url_without_a_host_for_certain_is_refused(
    run_tool: RunTool, url: str, error: str
) -> None:
    outcome = await run_tool("WebFetch", url=url, prompt="p")
    assert outcome.is_error
    assert error in outcome.content, outcome.content
