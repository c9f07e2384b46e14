"""Where an instruction file names `@path` imports, as Claude Code finds them: a word starting
with `@` that looks like a path, outside code spans and fenced code blocks."""

from __future__ import annotations

import re
from collections.abc import Iterator

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")
# An import starts a word (so `name@example.com` is not one) and runs to whitespace or a
# character that ends a path in prose.
_IMPORT = re.compile(r"(?<![^\s(])@([^\s`'\"<>()\[\]{},;]+)")
_TRAILING_PUNCTUATION = ".:!?"


def find_imports(text: str) -> Iterator[tuple[int, str]]:
    """`(line number, path)` for each `@path` import, outside code spans and fenced blocks.

    A path must look like one (hold a `/` or a `.`), so `@someone` in prose is not an import.
    """
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1).startswith(fence) and not line.strip(" `~"):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        prose = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for match in _IMPORT.finditer(prose):
            target = match.group(1).rstrip(_TRAILING_PUNCTUATION)
            if "/" in target or "." in target:
                yield number, target
