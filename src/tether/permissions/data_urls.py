"""Code handed to a JavaScript runtime in a `data:` URL (`node --import data:text/javascript,
CODE`, `deno run data:application/typescript;base64,...`, `bun`'s preloads): the URL is the
code, decoded as RFC 2397 says (percent-escapes, or base64 after `;base64`), and judged as
inline `-e` code is (inline_verdicts.py); the word is read as a URL first, as the runtime
reads it (module_urls.py: `' data:...'`, `'d<TAB>ata:...'`). A URL of another type (wasm,
a type not given) or one that does not decode stays code not seen."""

from __future__ import annotations

import binascii
from base64 import b64decode
from urllib.parse import unquote_to_bytes

from tether.permissions.module_urls import module_url

_SCRIPT_TYPES = ("javascript", "ecmascript", "typescript", "jsx", "tsx")
"""Media types whose body is script text the runtime runs (`text/javascript`,
`application/typescript`...)."""
RUNTIMES = {"node": ("-e", "node"), "nodejs": ("-e", "node"), "deno": ("eval", "deno")} | {
    "bun": ("-e", "bun")
}
"""Each runtime's inline-code option, as rules see it, and its language (interpreter_code)."""


def data_url_code(word: str) -> str | None:
    """The script a `data:` URL holds (the word read as the runtime's URL parser reads it:
    module_urls.py), or None when it holds none that can be read."""
    word = module_url(word) or ""
    if not word.startswith("data:"):
        return None
    header, comma, body = word[5:].partition(",")
    if not comma:
        return None
    parts = [part.strip().lower() for part in header.split(";")]
    if not any(kind in parts[0] for kind in _SCRIPT_TYPES):
        return None
    raw = unquote_to_bytes(body)
    if "base64" in parts[1:]:
        try:
            raw = b64decode(raw, validate=False)
        except (binascii.Error, ValueError):
            return None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
