"""curl and wget: the files their URL arguments read and write, read as the programs read them,
and their options that bring in options the engine cannot see.

A URL is a file name in disguise. curl reads `file://` URLs (and writes them with `-T`),
decoding `%2e` to `.`, taking any host (`file://localhost/...`), and expanding its own globs
(`{a,b}`, `[a-z]`) unless `-g`; `-O` writes the URL's last segment, `-J` a name the server
picks, `-o` a name whose `#1` is what a glob matched. wget writes what it fetches under the
directory `-P` gives: the URL's last segment, or its whole decoded path with `-x` (after the
host unless `-nH`), anything with `-r`, `-m` or `--content-disposition`. Options read from a
file (`curl -K`, `wget --config`, `wget -e CMD`, one wgetrc command) may be any option,
`-o .git/config` among them: code the engine cannot see.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from tether.permissions.shell_words import DYN, is_literal, program_name

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_CURL_GLOB = re.compile(r"\{[^{}]*\}|\[[^\[\]]*\]")
_OUTPUT_TEMPLATE = re.compile(r"#[0-9]+")
_PERCENT_NEAR_UNKNOWN = re.compile("%(?:\x00[0-9A-Fa-f]{0,2}|[0-9A-Fa-f]\x00[0-9A-Fa-f]?)")
"""A `%` escape part of which a glob gives: unknown, as far as it may reach."""


@dataclass(frozen=True)
class ClientUse:
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    unseen: tuple[str, ...] = ()


CONFIG_OPTIONS = {
    "curl": ("-K", "--config"),
    "wget": ("--config", "-e", "--execute"),
}
"""Options whose value is more options, read from a file or given as a wgetrc command."""


def client_use(argv: tuple[str, ...]) -> ClientUse | None:
    """What curl or wget reads and writes through its URLs; None for another program."""
    name = program_name(argv[0]) if argv else ""
    words = argv[1:]
    if name in _FETCHERS or (name == "nix" and _nix_fetch(words)):
        # nix copies the file a `file:` URL names into the world-readable store.
        urls = [w for w in words if w[:5].lower() == "file:"]
        return ClientUse(tuple(p for u in urls if (p := file_url_path(u)) is not None))
    if name not in CONFIG_OPTIONS:
        return None
    unseen = [
        f"{name} {option} reads options that may be any of {name}'s"
        for option in CONFIG_OPTIONS[name]
        if any(_is_option(w, option) for w in words)
    ]
    if name == "curl":
        return _curl(words, unseen)
    return _wget(words, unseen)


_FETCHERS = frozenset({"nix-prefetch-url", "nix-prefetch-git", "nix-prefetch-scripts"})


def _nix_fetch(words: tuple[str, ...]) -> bool:
    """`nix store prefetch-file URL`, `nix-prefetch-url`'s successor (nix's global options
    may come first)."""
    positional = [w for w in words if not w.startswith("-")]
    return positional[:2] == ["store", "prefetch-file"] or "prefetch-file" in positional[:1]


def _curl(words: tuple[str, ...], unseen: list[str]) -> ClientUse:
    globs = not any(w in ("-g", "--globoff") for w in words)
    uploads = any(
        _is_option(w, "-T") or _is_option(w, "--upload-file") or _bundles(w, "T") for w in words
    )
    urls = [w for w in words if _URL.match(w) or w[:5].lower() == "file:"]
    urls += _values(words, ("--url",))
    reads: list[str] = []
    writes: list[str] = []
    for url in urls:
        path = file_url_path(url, globs=globs)
        if path is not None:
            reads.append(path)
            if uploads:
                writes.append(path)  # an upload to a file URL writes it
    directory = _value(words, ("--output-dir",)) or ""
    if any(w in ("-O", "--remote-name", "--remote-name-all") or _bundles(w, "O") for w in words):
        writes += [_join(directory, _last_segment(u, decode=False)) for u in urls]
    if any(w in ("-J", "--remote-header-name") or _bundles(w, "J") for w in words):
        writes.append(_join(directory, DYN))  # the server's name, without its directories
    for output in _values(words, ("-o", "--output")):
        if _OUTPUT_TEMPLATE.search(output):
            writes.append(_join(directory, _OUTPUT_TEMPLATE.sub(DYN, output)))
    return ClientUse(tuple(reads), tuple(writes), tuple(unseen))


def _wget(words: tuple[str, ...], unseen: list[str]) -> ClientUse:
    urls = [w for w in words if _URL.match(w)]
    prefix = _value(words, ("-P", "--directory-prefix")) or ""
    anywhere = any(
        w in ("-r", "--recursive", "-m", "--mirror", "--content-disposition", "-i", "--input-file")
        or w.startswith(("--input-file=", "--cut-dirs"))
        or _bundles(w, "r")
        or _bundles(w, "m")
        for w in words
    )
    if anywhere:
        return ClientUse((), (_join(prefix, DYN),), tuple(unseen))
    tree = any(w in ("-x", "--force-directories") or _bundles(w, "x") for w in words)
    no_host = any(w in ("-nH", "--no-host-directories") for w in words)
    writes: list[str] = []
    for url in urls:
        if tree:
            parts = urlsplit(url)
            path = unquote(parts.path).lstrip("/")
            writes.append(_join(prefix, path if no_host else _join(parts.netloc, path)))
        else:
            writes.append(_join(prefix, _last_segment(url, decode=True)))
    return ClientUse((), tuple(writes), tuple(unseen))


def file_url_path(word: str, *, globs: bool = True) -> str | None:
    """The file a `file:` URL names, as curl reads it: any host, its globs (`{a,b}`, `[a-z]`)
    unknown text, then `%XX` decoded; None for another word."""
    if word[:5].lower() != "file:":
        return None
    rest = word[5:]
    if rest.startswith("//"):
        host, _, rest = rest[2:].partition("/")  # `file://localhost/x`, `file:///x`
        if not is_literal(host):
            rest = f"{DYN}/{rest}"  # `file://$PWD/.env`: the host may be empty, $PWD the path
    if not is_literal(word):
        return "/" + rest.lstrip("/") if is_literal(rest[:1]) else rest
    if globs:
        # curl expands its globs first, then decodes: `%{6}5` is `%65`, an `e`.
        rest = _PERCENT_NEAR_UNKNOWN.sub(DYN, _CURL_GLOB.sub(DYN, rest))
    return "/" + unquote(rest.lstrip("/"))


def _last_segment(url: str, *, decode: bool) -> str:
    path = urlsplit(url).path
    segment = path.rpartition("/")[2] or "index.html"
    return unquote(segment) if decode else segment


def _join(directory: str, name: str) -> str:
    if not directory or name.startswith("/"):
        return name
    return directory.rstrip("/") + "/" + name


def _is_option(word: str, option: str) -> bool:
    if word == option:
        return True
    if option.startswith("--"):
        return word.startswith(option + "=")
    return len(word) > 2 and word.startswith(option) and not word.startswith("--")


def _bundles(word: str, letter: str) -> bool:
    """A bundle of short flags holding `letter` (`-sSLO`; not `-O.mcp.json`, a value)."""
    flags = word[1:]
    return len(word) > 2 and word[0] == "-" and flags.isalpha() and letter in flags


def _values(words: tuple[str, ...], options: tuple[str, ...]) -> list[str]:
    found: list[str] = []
    for i, word in enumerate(words):
        for option in options:
            if word == option and i + 1 < len(words):
                found.append(words[i + 1])
            elif option.startswith("--") and word.startswith(option + "="):
                found.append(word.partition("=")[2])
            elif not option.startswith("--") and len(word) > 2 and word.startswith(option):
                found.append(word[2:])
    return found


def _value(words: tuple[str, ...], options: tuple[str, ...]) -> str | None:
    found = _values(words, options)
    return found[-1] if found else None
