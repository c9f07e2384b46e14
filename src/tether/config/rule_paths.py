"""The `paths:` of a `.claude/rules/*.md` file's front matter: the globs of the files the rule
is about. Claude Code loads such a rule only once the model reads or edits a file one of them
matches; a rule without `paths` goes into every prompt.

Read leniently, as Claude Code reads it: a YAML list (items quoted or not: an unquoted `**/*.ts`
is not valid YAML, but it is what people write), or one string of comma-separated globs
(`src/**/*.{ts,tsx}, lib/**`, commas inside braces kept). A `paths` key naming no glob leaves
the rule unconditional."""

from __future__ import annotations

import re
from pathlib import Path

from tether.text_files import UnreadableFile, read_text_file

HEAD_BYTES = 4096
"""What is read of a rule to find its front matter."""

_KEY = re.compile(r"^paths\s*:(.*)$")
_ITEM = re.compile(r"^\s*-\s*(.*)$")
_OTHER_KEY = re.compile(r"^[A-Za-z_][\w-]*\s*:")


def rule_files(directory: Path) -> list[Path]:
    """The `*.md` files under a `.claude/rules` directory (its subdirectories too), sorted, as
    Claude Code loads them with the instruction files. A rule whose front matter names `paths`
    applies only to files it matches, so it is not read into every prompt (left out here:
    `scoped_rules` has it)."""
    return [p for p in _all_rules(directory) if rule_globs(p) is None]


def scoped_rules(directory: Path) -> list[Path]:
    """The rules of a `.claude/rules` directory that name `paths` (`tether.config.rule_paths`),
    sorted: told to the model once it reads or edits a file they match."""
    return [p for p in _all_rules(directory) if rule_globs(p) is not None]


def _all_rules(directory: Path) -> list[Path]:
    try:
        return sorted(p for p in directory.rglob("*.md") if p.is_file())
    except OSError:
        return []


def rule_globs(path: Path) -> tuple[str, ...] | None:
    """The globs of the rule at `path`; None when it applies everywhere (no `paths`, none
    named, or the file unreadable: reading it for the prompt says why)."""
    try:
        head = read_text_file(path, limit_bytes=HEAD_BYTES, lenient=True, truncate=True) or ""
    except UnreadableFile:
        return None
    return globs_of(head)


def globs_of(text: str) -> tuple[str, ...] | None:
    """The globs `paths` names in the front matter at the start of `text`, if any."""
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].rstrip() != "---":
        return None
    front: list[str] = []
    for line in lines[1:]:
        if line.rstrip() in ("---", "..."):
            break
        front.append(line)
    else:
        return None  # no closing fence: no front matter
    for index, line in enumerate(front):
        found = _KEY.match(line)
        if found is None:
            continue
        inline = found.group(1).strip()
        if inline.startswith("[") and inline.endswith("]"):
            inline = inline[1:-1]
        words = _split(inline) if inline else _items(front[index + 1 :])
        globs = tuple(g for g in (_unquote(w) for w in words) if g)
        return globs or None
    return None


def _items(lines: list[str]) -> list[str]:
    """The `- item` lines under the key, up to the next key."""
    items: list[str] = []
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = _ITEM.match(line)
        if item is not None:
            items.append(item.group(1))
        elif _OTHER_KEY.match(line):
            break
    return items


def _split(text: str) -> list[str]:
    """`a, b/{c,d}` -> ["a", "b/{c,d}"]: commas split, but not inside braces or quotes."""
    words: list[str] = []
    depth = 0
    quote = ""
    current = ""
    for char in text:
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        elif char == "," and depth == 0:
            words.append(current)
            current = ""
            continue
        current += char
    words.append(current)
    return words


def _unquote(word: str) -> str:
    word = word.strip()
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"":
        return word[1:-1].strip()
    return word.partition(" #")[0].strip()  # a comment after it
