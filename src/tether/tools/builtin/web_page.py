"""A web page fetched for WebFetch: one GET under limits (size, time, redirects kept to the same
host), and its body made readable (HTML as Markdown, other text as it is)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit, urlunsplit

from tether.protocol import ToolError
from tether.web_hosts import url_host, url_port

if TYPE_CHECKING:
    import httpx2

MAX_PAGE_BYTES = 10 * 1024 * 1024
"""The most of a body read (decompressed), as Claude Code: a larger page is refused."""
FETCH_TIMEOUT_S = 60.0
"""The whole fetch, redirects included."""
MAX_REDIRECTS = 10
USER_AGENT = "tether-webfetch"


@dataclass(frozen=True)
class Page:
    """A fetched page: its final URL, status, size in bytes and readable text."""

    url: str
    status: int
    reason: str
    size: int
    text: str


@dataclass(frozen=True)
class Redirected:
    """A redirect to another host: reported, not followed (the user approved `url`'s host)."""

    url: str
    status: int
    location: str


def upgraded(url: str) -> str:
    """`url` as it is fetched: http upgraded to https, as Claude Code does (for every host,
    local addresses included: a page is never read in clear)."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "http":
        return url
    return urlunsplit(parts._replace(scheme="https"))


def check_url(url: str) -> None:
    """Refuse what is no fetchable URL, with what is wrong."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        raise ToolError(f"Invalid URL {url!r}: only http and https URLs can be fetched.")
    if not parts.hostname:
        raise ToolError(f"Invalid URL {url!r}: it names no host.")
    if parts.username is not None or parts.password is not None:
        raise ToolError(f"Invalid URL {url!r}: URLs with a user name or password are refused.")
    if url_host(url) is None:
        raise ToolError(
            f"Invalid URL {url!r}: {parts.hostname!r} is not a host name or an IP address (or "
            "the URL's authority holds a backslash, a space or a control character)."
        )
    if url_port(url) is None:
        raise ToolError(f"Invalid URL {url!r}: its port is not a number from 0 to 65535.")


async def fetch_page(url: str) -> Page | Redirected:
    """GET `url`: redirects within its host followed (at most `MAX_REDIRECTS`), one to another
    host returned; a body over `MAX_PAGE_BYTES` or a fetch over `FETCH_TIMEOUT_S` refused."""
    import httpx2

    url = upgraded(url)
    deadline = time.monotonic() + FETCH_TIMEOUT_S
    async with httpx2.AsyncClient(
        timeout=httpx2.Timeout(FETCH_TIMEOUT_S),
        follow_redirects=False,
        trust_env=True,  # proxies from the environment (HTTPS_PROXY, NO_PROXY)
        headers={"user-agent": USER_AGENT, "accept": "text/markdown, text/html, */*"},
    ) as client:
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            try:
                async with client.stream("GET", current) as response:
                    location = response.headers.get("location")
                    if response.is_redirect and location:
                        target = upgraded(urljoin(current, location))
                        if not _same_host(current, target):
                            return Redirected(current, response.status_code, target)
                        current = target
                        continue
                    body = await _bounded_body(response, deadline, current)
                    return Page(
                        current,
                        response.status_code,
                        response.reason_phrase,
                        len(body),
                        readable(body, response.headers.get("content-type", ""), response),
                    )
            except httpx2.TimeoutException:
                raise ToolError(
                    f"Fetching {current} took over {FETCH_TIMEOUT_S:.0f} s; gave up."
                ) from None
            except httpx2.HTTPError as e:
                raise ToolError(f"Could not fetch {current}: {e or type(e).__name__}.") from None
    raise ToolError(f"{url} redirected more than {MAX_REDIRECTS} times; gave up.")


def _same_host(url: str, target: str) -> bool:
    """A redirect Claude Code follows: the same host (in `url_host`'s one spelling), give or
    take `www.`, and the same port."""
    if urlsplit(target).scheme not in ("http", "https"):
        return False
    old, new = url_host(url), url_host(target)
    return (
        old is not None
        and new is not None
        and old.removeprefix("www.") == new.removeprefix("www.")
        and url_port(url) == url_port(target)
    )


async def _bounded_body(response: httpx2.Response, deadline: float, url: str) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_PAGE_BYTES:
        raise ToolError(_too_large(url, int(declared)))
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_PAGE_BYTES:
            raise ToolError(_too_large(url, None))
        if time.monotonic() > deadline:
            raise ToolError(f"Fetching {url} took over {FETCH_TIMEOUT_S:.0f} s; gave up.")
        chunks.append(chunk)
    return b"".join(chunks)


def _too_large(url: str, size: int | None) -> str:
    limit = MAX_PAGE_BYTES // (1024 * 1024)
    given = f" ({size} bytes)" if size is not None else ""
    return f"The page at {url} is larger than the {limit} MiB WebFetch reads{given}; not fetched."


def readable(body: bytes, content_type: str, response: httpx2.Response) -> str:
    """The body as text for the model: HTML as Markdown, other text decoded, binary refused."""
    kind = content_type.split(";")[0].strip().lower()
    is_html = kind in ("text/html", "application/xhtml+xml") or (
        not kind and body.lstrip()[:15].lower().startswith((b"<!doctype html", b"<html"))
    )
    text = decoded(body, response.charset_encoding, is_html=is_html)
    if is_html:
        return html_as_markdown(text)
    if kind.startswith("text/") or kind.endswith(("json", "xml", "javascript")) or not kind:
        if "\x00" in text:
            raise ToolError(f"The page is binary ({kind or 'no content type'}); not shown.")
        return text
    raise ToolError(f"The page is {kind}, not text; WebFetch shows only text and HTML.")


def decoded(body: bytes, charset: str | None, *, is_html: bool) -> str:
    """The body as text, in the encoding found the way a browser finds it: the header's
    charset, a byte-order mark, the document's own declaration (`<meta charset>`, `<meta
    http-equiv>`, `<?xml encoding?>`), then a guess from the bytes (charset-normalizer), then
    UTF-8 and Windows-1252. The header, when it names a known encoding, is taken at its word
    (bytes it cannot decode shown as U+FFFD, as a browser does); past it, the search is
    BeautifulSoup's `UnicodeDammit`, which passes over an encoding that does not decode."""
    if charset:
        try:
            return body.decode(charset, errors="replace")
        except LookupError:  # a charset no codec knows: found as if the header had none
            pass
    from bs4.dammit import UnicodeDammit

    text = UnicodeDammit(body, is_html=is_html).unicode_markup
    return text if text is not None else body.decode("utf-8", errors="replace")


def html_as_markdown(html: str) -> str:
    """HTML as Markdown (markdownify, the Python counterpart of the Turndown Claude Code uses),
    scripts, styles, the title and other invisible parts left out."""
    from bs4 import BeautifulSoup
    from markdownify import MarkdownConverter  # pyright: ignore[reportMissingTypeStubs]

    soup = BeautifulSoup(html, "html.parser")
    # The head's parts, not the head: its end tag is optional, and the standard library's
    # parser then puts the whole body inside it.
    hidden_kinds = ["script", "style", "noscript", "template", "iframe", "svg", "title"]
    for hidden in soup([*hidden_kinds, "meta", "link", "base"]):
        hidden.decompose()
    converter = MarkdownConverter(heading_style="ATX")  # pyright: ignore[reportUnknownVariableType]
    markdown = str(converter.convert_soup(soup))  # pyright: ignore[reportUnknownMemberType, reportUnknownArgumentType]
    lines = [line.rstrip() for line in markdown.splitlines()]
    kept: list[str] = []
    for line in lines:  # runs of blank lines made by layout markup, as one
        if line or (kept and kept[-1]):
            kept.append(line)
    return "\n".join(kept).strip()
