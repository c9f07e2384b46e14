"""WebFetch's wire: http upgraded to https as Claude Code does (local addresses included, a
same-host redirect too), and a page's text decoded in the encoding it declares (header,
`<meta charset>`, `<meta http-equiv>`, `<?xml encoding?>`) or the one its bytes show."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from tests.tools.web_pages import Page, web_site
from tether.tools.registry import ToolOutcome

RunTool = Callable[..., Awaitable[ToolOutcome]]

WORDS = "café naïve señor über"
JAPANESE = "東京の天気は晴れです。明日は雨が降るでしょう。"


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
async def test_an_http_url_is_fetched_over_https(run_tool: RunTool, host: str) -> None:
    page = Page(b"over TLS", headers={"content-type": "text/plain"})
    with web_site({"/plain": page}) as site:
        port = site.url.rsplit(":", 1)[1]
        site.pages["/moved"] = Page(
            status=301, headers={"location": f"http://127.0.0.1:{port}/plain"}
        )
        direct = await run_tool("WebFetch", url=f"HTTP://{host}:{port}/plain", prompt="p")
        redirected = await run_tool("WebFetch", url=f"http://127.0.0.1:{port}/moved", prompt="p")
    assert direct.content == f"Prompt: p\n\nContent of https://{host}:{port}/plain:\n\nover TLS"
    assert redirected.content.endswith(f"Content of https://127.0.0.1:{port}/plain:\n\nover TLS")


async def test_a_server_speaking_only_plain_http_is_not_read_in_clear(run_tool: RunTool) -> None:
    page = Page(b"in clear", headers={"content-type": "text/plain"})
    with web_site({"/plain": page}, tls=False) as site:
        outcome = await run_tool("WebFetch", url=f"{site.url}/plain", prompt="p")
        requested = list(site.requested)
    assert outcome.is_error
    assert outcome.content.startswith(f"Error: Could not fetch {site.url.replace('http', 'https')}")
    assert requested == []


@pytest.mark.parametrize(
    ("content_type", "declaration"),
    [
        ("text/html", '<meta charset="iso-8859-1">'),
        ("text/html", "<meta charset=windows-1252>"),
        ("text/html", '<meta http-equiv="Content-Type" content="text/html; charset=latin-1">'),
        ("", '<!DOCTYPE html><html><head><meta charset="ISO-8859-1"></head>'),
    ],
)
async def test_a_pages_own_charset_declaration_is_honoured(
    run_tool: RunTool, content_type: str, declaration: str
) -> None:
    body = f"{declaration}<title>t</title><p>{WORDS}</p>".encode("latin-1")
    headers = {"content-type": content_type} if content_type else {}
    with web_site({"/p": Page(body, headers=headers)}) as site:
        outcome = await run_tool("WebFetch", url=f"{site.url}/p", prompt="p")
    assert outcome.content.endswith(WORDS), outcome.content


async def test_the_headers_charset_wins_and_xml_declares_its_own(run_tool: RunTool) -> None:
    header_wins = Page(
        f'<meta charset="iso-8859-1"><p>{JAPANESE}</p>'.encode("shift_jis"),
        headers={"content-type": "text/html; charset=shift_jis"},
    )
    xml = Page(
        f'<?xml version="1.0" encoding="ISO-8859-1"?><a>{WORDS}</a>'.encode("latin-1"),
        headers={"content-type": "application/xml"},
    )
    unknown = Page(
        f"<p>{WORDS}</p>".encode(), headers={"content-type": "text/html; charset=no-such"}
    )
    with web_site({"/h": header_wins, "/x": xml, "/u": unknown}) as site:
        by_header = await run_tool("WebFetch", url=f"{site.url}/h", prompt="p")
        by_xml = await run_tool("WebFetch", url=f"{site.url}/x", prompt="p")
        by_bytes = await run_tool("WebFetch", url=f"{site.url}/u", prompt="p")
    assert by_header.content.endswith(JAPANESE), by_header.content
    assert by_xml.content.endswith(f"<a>{WORDS}</a>"), by_xml.content
    assert by_bytes.content.endswith(WORDS), by_bytes.content


async def test_an_undeclared_page_is_decoded_by_what_its_bytes_show(run_tool: RunTool) -> None:
    utf8 = Page(f"{WORDS} — 東京".encode(), headers={"content-type": "text/plain"})
    text = JAPANESE * 3
    sjis = Page(text.encode("shift_jis"), headers={"content-type": "text/plain"})
    with web_site({"/u": utf8, "/l": sjis}) as site:
        as_utf8 = await run_tool("WebFetch", url=f"{site.url}/u", prompt="p")
        as_sjis = await run_tool("WebFetch", url=f"{site.url}/l", prompt="p")
    assert as_utf8.content.endswith(f"{WORDS} — 東京"), as_utf8.content
    assert as_sjis.content.endswith(text), as_sjis.content


async def test_a_page_without_its_optional_head_and_body_tags_keeps_its_text(
    run_tool: RunTool,
) -> None:
    page = Page(
        b"<!DOCTYPE html><html><head><meta charset=utf-8><title>T</title>"
        b"<link rel=stylesheet href=s.css><h1>Notes</h1><p>Version 2 adds search.",
        headers={"content-type": "text/html"},
    )
    with web_site({"/p": page}) as site:
        outcome = await run_tool("WebFetch", url=f"{site.url}/p", prompt="p")
    assert outcome.content.endswith(":\n\n# Notes\n\nVersion 2 adds search."), outcome.content
