"""The `paths:` of a `.claude/rules/*.md` file's front matter: the globs of the files the rule
is about. Claude Code loads such a rule only once the model reads or edits a file one of them
matches; a rule without `paths` goes into every prompt.

Read as Claude Code reads it: the front matter is YAML, so `paths` may be any scalar (plain,
quoted, folded `>` or literal `|` block) or a list of them, read and matched as a skill's
`paths` are (`tether.path_globs`: commas, braces, a trailing `/**`, gitignore matching).
Front matter that is not valid YAML (an unquoted `- **/*.ts`, which is what people write) is
read line by line instead, more leniently than Claude Code (which then loads the rule into
every prompt). A `paths` that names no glob, or that cannot be read, leaves the rule for every
prompt, with a sentence saying why: a rule is never silently lost."""

from __future__ import annotations

import re
from pathlib import Path

from tether.path_globs import PathGlobs, path_globs
from tether.text_files import UnreadableFile, read_text_file

HEAD_BYTES = 4096
"""What is read of a rule to find its front matter."""

_KEY = re.compile(r"^paths\s*:(.*)$")
_ITEM = re.compile(r"^\s*-\s*(.*)$")
_OTHER_KEY = re.compile(r"^[A-Za-z_][\w-]*\s*:")
_BLOCK = re.compile(r"^[>|][+-]?[0-9]?\s*(#.*)?$")


def rule_files(directory: Path, problems: list[str] | None = None) -> list[Path]:
    """The `*.md` files under a `.claude/rules` directory (its subdirectories too), sorted, as
    Claude Code loads them with the instruction files. A rule whose front matter names `paths`
    applies only to files it matches, so it is not read into every prompt (left out here:
    `scoped_rules` has it). Why a rule's `paths` were not taken goes to `problems`."""
    unconditional: list[Path] = []
    for path in _all_rules(directory):
        read = rule_paths(path)
        if read.globs is None:
            unconditional.append(path)
        if read.problem is not None and problems is not None:
            problems.append(f"{path}: {read.problem}")
    return unconditional


def scoped_rules(directory: Path) -> list[Path]:
    """The rules of a `.claude/rules` directory that name `paths`, sorted: told to the model
    once it reads or edits a file they match."""
    return [p for p in _all_rules(directory) if rule_globs(p) is not None]


def _all_rules(directory: Path) -> list[Path]:
    try:
        return sorted(p for p in directory.rglob("*.md") if p.is_file())
    except OSError:
        return []


def rule_globs(path: Path) -> tuple[str, ...] | None:
    """The globs of the rule at `path`, as written; None when it applies everywhere."""
    return rule_paths(path).globs


def rule_paths(path: Path) -> PathGlobs:
    """The `paths` of the rule at `path` (for every prompt when the file is unreadable:
    reading it for the prompt says why)."""
    try:
        head = read_text_file(path, limit_bytes=HEAD_BYTES, lenient=True, truncate=True) or ""
    except UnreadableFile:
        return PathGlobs(None)
    return paths_of(head)


def globs_of(text: str) -> tuple[str, ...] | None:
    """The globs `paths` names in the front matter at the start of `text`, if any."""
    return paths_of(text).globs


def paths_of(text: str) -> PathGlobs:
    """What `paths` says in the front matter at the start of `text`."""
    front = _front_matter(text)
    if front is None:
        return PathGlobs(None)
    import yaml

    try:
        data = yaml.safe_load("\n".join(front))
    except yaml.YAMLError:
        written = _lenient(front)
    else:
        if not isinstance(data, dict) or "paths" not in data:
            return PathGlobs(None)
        written = data["paths"]  # pyright: ignore[reportUnknownVariableType]
    read = path_globs(written)
    if read.problem is not None:
        return PathGlobs(None, f"{read.problem}: the rule applies everywhere")
    return read


def _front_matter(text: str) -> list[str] | None:
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or lines[0].rstrip() != "---":
        return None
    front: list[str] = []
    for line in lines[1:]:
        if line.rstrip() in ("---", "..."):
            return front
        front.append(line)
    return None  # no closing fence: no front matter


def _lenient(front: list[str]) -> str | list[str] | None:
    """`paths` of front matter YAML cannot read, line by line: inline, a block scalar's
    indented lines, or `- item` lines."""
    for index, line in enumerate(front):
        found = _KEY.match(line)
        if found is None:
            continue
        inline = found.group(1).strip()
        rest = front[index + 1 :]
        if _BLOCK.match(inline):
            return [w.strip() for w in _indented(rest)]
        if inline.startswith("[") and inline.endswith("]"):
            inline = inline[1:-1]
        return inline if inline else _items(rest) or None
    return None


def _indented(lines: list[str]) -> list[str]:
    taken: list[str] = []
    for line in lines:
        if line.strip() and not line[:1].isspace():
            break
        taken.append(line)
    return [line for line in taken if line.strip()]


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
