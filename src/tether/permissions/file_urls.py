"""The one place a `file:` URL becomes the path it names, as the programs reading it (hg, svn,
git, conda, cargo) do: the host part dropped (`file:///x`, `file://localhost/x`, `file:/x`
are `/x`), then every `%XX` escape decoded once (`file:///ws/%2e%2e/x` is `/ws/../x`, judged
as the `..` it is). A word known only as it runs is left as written."""

from __future__ import annotations

from urllib.parse import unquote

from tether.permissions.shell_words import is_literal


def url_host(url: str) -> str:
    """The host of a URL written `SCHEME://HOST/...`; "" for none (`file:///x`, `file:/x`)."""
    rest = url.partition(":")[2]
    return rest[2:].partition("/")[0] if rest.startswith("//") else ""


def local_url_path(url: str) -> str:
    """The path a local URL names (`file:`, `bundle:`, `git+file:`: what follows the first
    `:`), its escapes decoded; "/" for an empty one."""
    rest = url.partition(":")[2]
    if rest.startswith("//"):
        rest = "/" + rest[2:].partition("/")[2]
    if is_literal(url):
        rest = unquote(rest, errors="surrogateescape")
    return rest or "/"
