"""A module specifier read as node reads it (`--import`, `--loader`, `--require`, bun's and
deno's `--preload`): a word that parses as an absolute URL is one, by the WHATWG URL parser
(Ada, the parser node itself uses), which strips leading and trailing C0 controls and spaces,
removes every tab and newline, takes the scheme in any case, drops `localhost` from a `file:`
URL, turns `\\` into `/` and folds `.`/`..` segments, `%2E%2E` included; a `file:` URL is then
the path it decodes to (node's `fileURLToPath`). A path or a package name (`./x.mjs`,
`/x.mjs`, `ts-node/register`) is no URL and stays as written; an ES module's relative or
absolute specifier is itself resolved as a URL against the directory (`./a%2E%2E/x`), so one
holding `%` or `\\` is read the same way."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final
from urllib.parse import unquote

if TYPE_CHECKING:
    from ada_url import URL  # pyright: ignore[reportMissingTypeStubs]

_DEPTH: Final = 64
_BASE: Final = "file:///" + "tether-cwd/" * _DEPTH
"""A directory deep enough that no relative specifier climbs above it: what is left of it
after resolving says how far the specifier climbed from the real one."""
_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_C0_OR_SPACE: Final = "".join(map(chr, range(0x21)))
UNSEEN_FILE_URL: Final = "data:,"
"""What a `file:` URL node refuses or tether cannot place stands for: code not seen (a host
other than `localhost`, an escaped `/`)."""


def module_url(word: str) -> str | None:
    """The URL `word` is, as node's parser spells it (`' DATA:x'`: `data:x`), a `file:` URL as
    its path; None for a word that is no absolute URL (a path, a package name)."""
    if word.startswith(("/", "./", "../")) or word in (".", ".."):
        return None
    # What the parser sees first: C0 controls and spaces stripped at both ends, tabs and
    # newlines removed; without a scheme there it is no absolute URL (the parser, a compiled
    # library, is loaded only for words that may be one).
    seen = word.strip(_C0_OR_SPACE).replace("\t", "").replace("\n", "").replace("\r", "")
    if not _SCHEME.match(seen):
        return None
    try:
        url = _url(word)
    except ValueError:
        return None
    href = str(url.href)
    if str(url.protocol) != "file:":
        return href
    return _file_path(str(url.host), str(url.pathname))


def module_specifier(word: str, *, esm: bool) -> str:
    """`word` as the module it names: a URL's normal spelling (a `file:` URL's path), and for
    an ES module (`esm`) a path specifier holding `%` or `\\` resolved as node resolves it
    (percent-escapes decoded, `..` folded); any other word as written."""
    url = module_url(word)
    if url is not None:
        return url
    if not esm or not word.startswith(("/", "./", "../")) or not ("%" in word or "\\" in word):
        return word
    try:
        resolved = _url(word, _BASE)
    except ValueError:
        return word
    path = _file_path(str(resolved.host), str(resolved.pathname))
    if word.startswith("/") or path == UNSEEN_FILE_URL:
        return path
    parts = path.split("/")[1:]
    kept = 0
    while kept < min(_DEPTH, len(parts) - 1) and parts[kept] == "tether-cwd":
        kept += 1
    return "/".join(["."] + [".."] * (_DEPTH - kept) + parts[kept:])


def _url(word: str, base: str | None = None) -> URL:
    from ada_url import URL  # pyright: ignore[reportMissingTypeStubs]

    return URL(word) if base is None else URL(word, base)


def _file_path(host: str, pathname: str) -> str:
    if host not in ("", "localhost") or "%2f" in pathname.lower():
        return UNSEEN_FILE_URL
    return unquote(pathname, errors="surrogateescape")
