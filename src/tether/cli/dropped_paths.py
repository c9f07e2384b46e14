"""Image files dropped or pasted into the REPL's prompt: terminals write a dropped file as its
path, bare, quoted (`'/a b/pic.png'`), with its spaces escaped (`/a\\ b/pic.png`) or as a
`file://` URL. Claude Code sends such an image as an image; so does tether, whatever the file's
name says, when its first bytes are a picture's. Any other file stays its path, in the text, as
in Claude Code (the model reads it if it needs to); the REPL says so, and how to attach it."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlparse

from tether.cli.written_paths import (
    AFTER_A_PATH,
    BEFORE_A_PATH,
    first_bytes,
    kind_of,
    written_path,
)

_WORD = re.compile(r"'([^']+)'|\"([^\"]+)\"|((?:\\.|[^\s'\"])+)")
"""A quoted path, or a bare one whose backslashes escape the next character."""
_ESCAPED = re.compile(r"\\(.)")


def dropped_paths(text: str, base: Path) -> tuple[list[Path], list[Path]]:
    """The files the words of `text` name by an absolute, `~` or `file://` path, in order,
    each once: the images, and the other files (sent as their paths)."""
    images: list[Path] = []
    others: list[Path] = []
    for match in _WORD.finditer(text):
        quoted = match.group(1) or match.group(2)
        word = quoted if quoted is not None else _ESCAPED.sub(r"\1", match.group(3))
        path = _path_of(word, base)
        if quoted is None and (path is None or kind_of(path) is None):
            # A path written in a sentence: `see /a/b.txt, and…`, `(/a/b.txt)`, `` `/a/b` ``
            # (a name that ends so itself, or holds a comma, `/a/b,c.txt`, is found as it
            # is, above).
            path = _path_of(word.lstrip(BEFORE_A_PATH).rstrip(AFTER_A_PATH), base)
        if path is None or path in images or path in others:
            continue
        if kind_of(path) != "file":  # a directory, a FIFO, a device: a word like any other
            continue
        if _is_image(path):
            images.append(path)
        else:
            others.append(path)
    return images, others


def not_attached(path: Path) -> str:
    """What the REPL says of a file path in a message that is not an image's."""
    return (
        f"{path} is not an image: it is sent as its path, as text (the model reads the file if "
        f"it needs to); @{str(path).replace(' ', chr(92) + ' ')} attaches its content"
    )


def _path_of(word: str, base: Path) -> Path | None:
    if word.startswith("file://"):
        word = unquote(urlparse(word).path)
    if not word.startswith(("/", "~")):
        return None
    return written_path(word, base)


def _is_image(path: Path) -> bool:
    from tether.tools.builtin.read_image import image_type

    start = first_bytes(path, 16)  # None: not a regular file, or not one that can be read
    return start is not None and image_type(start) is not None
