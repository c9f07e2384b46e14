"""How Claude Code reads an instruction file's markup: HTML comments that stand as a block are
left out of what the model sees, and `@path` imports are found only in prose (never in a
comment, a code span, a fenced or indented code block)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")
_COMMENT_START = re.compile(r"^ {0,3}<!--")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_INDENTED_CODE = re.compile(r"^(?: {4}|\t)")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:\s|$)")
# Claude Code's token: `@` after whitespace or at the line's start, running to whitespace, where
# `\ ` keeps a space in the path. Punctuation is part of the path, as there: `@a.md.` names
# `a.md.`, and `(@a.md)` or `name@a.md` is no import at all.
_IMPORT = re.compile(r"(?:^|(?<=\s))([*_~]*)@((?:[^\s\\]|\\ )+)")
# What Claude Code takes for a path: `./`, `~/`, `/` or a name's first character.
_PATH_START = re.compile(r"^(?:\./|~/|/.|[A-Za-z0-9._-])")
_LOOKS_LIKE_PATH = re.compile(r"/|\.\w")


@dataclass(frozen=True, slots=True)
class ImportToken:
    """An `@path` import as written: its line, its path, and whether it looks like a path
    (holds a `/` or an extension) rather than a name such as `@someone`, so that only a
    path-like one that is missing deserves a word."""

    line: int
    path: str
    path_like: bool


def strip_comments(text: str) -> str:
    """`text` without its block HTML comments, as Claude Code sends an instruction file: a
    comment that starts a line runs to the first line holding `-->`, and what follows that
    `-->` stays. A comment inside a line of prose, or one never closed, stays as written."""
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    for kind, start, end in _blocks(lines):
        if kind == "comment":
            rest = _after_comments("".join(lines[start:end]))
            if rest.strip():
                kept.append(rest)
        else:
            kept.extend(lines[start:end])
    return "".join(kept)


def find_imports(text: str) -> Iterator[ImportToken]:
    """Each `@path` import, with its line number, in prose only (not in a comment, a code span
    or a code block). A `#fragment` is not part of the path."""
    lines = text.splitlines()
    for kind, start, end in _blocks(lines):
        if kind == "comment":
            yield from _tokens(end, _after_comments("\n".join(lines[start:end])))
        elif kind == "prose":
            for number in range(start, end):
                prose = _COMMENT.sub(_blank, _CODE_SPAN.sub(_blank, lines[number]))
                yield from _tokens(number + 1, prose)


def _tokens(number: int, prose: str) -> Iterator[ImportToken]:
    for match in _IMPORT.finditer(prose):
        emphasis, path = match.groups()
        # Emphasis around the token (`**@a.md**`) is markup, as in Claude Code's Markdown.
        if emphasis and path.endswith(emphasis):
            path = path.removesuffix(emphasis)
        path = path.split("#", 1)[0].replace("\\ ", " ")
        if path and _PATH_START.match(path) and path != "/":
            yield ImportToken(number, path, bool(_LOOKS_LIKE_PATH.search(path)))


def _blank(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


def _after_comments(block: str) -> str:
    """A comment block's text with its comments taken out: what follows the last `-->`."""
    end = block.rfind("-->") + 3
    return _COMMENT.sub("", block[:end]) + block[end:]


def _blocks(lines: list[str]) -> Iterator[tuple[str, int, int]]:
    """`(kind, first line, line after the last)` for each run of prose, code or a block
    comment; kinds are "prose", "code", "comment" and "unclosed" (a comment never closed
    runs to the end, as in Markdown, and imports nothing)."""
    number = 0
    blank_before = True
    in_list = False
    while number < len(lines):
        line = lines[number]
        opening = _FENCE.match(line)
        if opening:
            fence = opening.group(1)
            end = number + 1
            while end < len(lines):
                closing = _FENCE.match(lines[end])
                end += 1
                if (
                    closing
                    and closing.group(1).startswith(fence)
                    and not lines[end - 1].strip(" `~\r\n")
                ):
                    break
            yield "code", number, end
            number, blank_before = end, False
            continue
        if _COMMENT_START.match(line):
            end = number
            after = line.index("<!--") + 4
            while end < len(lines) and "-->" not in lines[end][after:]:
                end, after = end + 1, 0
            if end == len(lines):
                yield "unclosed", number, end
                return
            yield "comment", number, end + 1
            number, blank_before = end + 1, False
            continue
        if blank_before and not in_list and _INDENTED_CODE.match(line) and line.strip():
            end = number + 1
            while end < len(lines) and (_INDENTED_CODE.match(lines[end]) or not lines[end].strip()):
                end += 1
            yield "code", number, end
            number, blank_before = end, True
            continue
        if line.strip() and not _INDENTED_CODE.match(line):
            # A line right after prose continues it (and so the list item it is in).
            if _LIST_ITEM.match(line):
                in_list = True
            elif blank_before:
                in_list = False
        blank_before = not line.strip()
        yield "prose", number, number + 1
        number += 1
