"""The `paths:` of a `.claude/rules/*.md` file's front matter: the globs of the files the rule
is about. Claude Code loads such a rule only once the model reads or edits a file one of them
matches; a rule without `paths` goes into every prompt.

Read as Claude Code reads it: the front matter is YAML, so `paths` may be any scalar (plain,
quoted, folded `>` or literal `|` block) or a list of them; each string is split at commas
outside braces (`src/**/*.{ts,tsx}, lib/**`), braces are expanded, a trailing `/**` is taken
off (`sql/**` is `sql`), and globs that are all `**` leave the rule unconditional. Matching is
gitignore's (`rule_match`). Front matter that is not valid YAML (an unquoted `- **/*.ts`, which
is what people write) is read line by line instead, more leniently than Claude Code (which then
loads the rule into every prompt). A `paths` that names no glob, or that cannot be read, leaves
the rule for every prompt, with a sentence saying why: a rule is never silently lost."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

from tether.config.rule_match import bad_glob
from tether.slotted import Slotted
from tether.text_files import UnreadableFile, read_text_file

HEAD_BYTES = 4096
"""What is read of a rule to find its front matter."""

MAX_EXPANDED = 1000
"""At most this many globs from one rule's braces (Claude Code's bound)."""

_KEY = re.compile(r"^paths\s*:(.*)$")
_ITEM = re.compile(r"^\s*-\s*(.*)$")
_OTHER_KEY = re.compile(r"^[A-Za-z_][\w-]*\s*:")
_BLOCK = re.compile(r"^[>|][+-]?[0-9]?\s*(#.*)?$")


class RulePaths(Slotted):
    """What a rule's `paths` say: the globs, or None for every prompt; `problem`: why the
    `paths` written were not taken (then the rule is for every prompt)."""

    __slots__ = ("globs", "problem")
    globs: Final[tuple[str, ...] | None]
    problem: Final[str | None]

    def __init__(self, globs: tuple[str, ...] | None, problem: str | None = None) -> None:
        self.globs = globs
        self.problem = problem


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


def rule_paths(path: Path) -> RulePaths:
    """The `paths` of the rule at `path` (for every prompt when the file is unreadable:
    reading it for the prompt says why)."""
    try:
        head = read_text_file(path, limit_bytes=HEAD_BYTES, lenient=True, truncate=True) or ""
    except UnreadableFile:
        return RulePaths(None)
    return paths_of(head)


def globs_of(text: str) -> tuple[str, ...] | None:
    """The globs `paths` names in the front matter at the start of `text`, if any."""
    return paths_of(text).globs


def paths_of(text: str) -> RulePaths:
    """What `paths` says in the front matter at the start of `text`."""
    front = _front_matter(text)
    if front is None:
        return RulePaths(None)
    import yaml

    try:
        data = yaml.safe_load("\n".join(front))
    except yaml.YAMLError:
        written = _lenient(front)
    else:
        if not isinstance(data, dict) or "paths" not in data:
            return RulePaths(None)
        written = data["paths"]  # pyright: ignore[reportUnknownVariableType]
    if written is None:
        return RulePaths(None)
    strings = _strings(written)  # pyright: ignore[reportUnknownArgumentType]
    if strings is None:
        kind = type(written).__name__  # pyright: ignore[reportUnknownArgumentType]
        return RulePaths(None, f"`paths` is a {kind}, not globs: the rule applies everywhere")
    return _globs(strings)


def expanded(globs: tuple[str, ...]) -> list[str]:
    """The patterns `globs` stand for, as Claude Code matches them: braces expanded, a
    trailing `/**` taken off, `./` at the start taken off (Claude Code's matcher never
    matches those; they mean the rule's directory)."""
    patterns: list[str] = []
    for glob in globs:
        for one in _braces(glob):
            one = one.removesuffix("/**")
            negated = one.startswith("!")
            body = one[1:] if negated else one
            body = body.removeprefix("./")
            if body:
                patterns.append("!" + body if negated else body)
    return patterns[:MAX_EXPANDED]


def _globs(strings: list[str]) -> RulePaths:
    written = tuple(g for s in strings for g in (_unquote(w) for w in _split(s)) if g)
    patterns = expanded(written)
    if not patterns or all(p == "**" for p in patterns):
        return RulePaths(None)
    bad = [(p, why) for p in patterns if (why := bad_glob(p)) is not None]
    if bad:
        named = "; ".join(f"{p!r}: {why}" for p, why in bad)
        return RulePaths(None, f"`paths` glob not valid ({named}): the rule applies everywhere")
    return RulePaths(written)


def _strings(value: object) -> list[str] | None:
    """The strings of a YAML value: a scalar's text, a list's items (nested lists too)."""
    if isinstance(value, list):
        strings: list[str] = []
        for item in value:  # pyright: ignore[reportUnknownVariableType]
            inner = _strings(item)  # pyright: ignore[reportUnknownArgumentType]
            if inner is None:
                return None
            strings.extend(inner)
        return strings
    if isinstance(value, str):
        return value.splitlines()  # a literal block: one glob a line
    if isinstance(value, bool | int | float):
        return [str(value)]
    return None


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


def _braces(glob: str) -> list[str]:
    """`a/*.{ts,tsx}` -> ["a/*.ts", "a/*.tsx"], nested braces too; a brace with no comma at
    its level, or none closing it, stays as written."""
    results: list[str] = []
    pending = [glob]
    while pending and len(results) < MAX_EXPANDED:
        current = pending.pop()
        found = _first_group(current)
        if found is None:
            results.append(current)
            continue
        start, end, options = found
        pending.extend(
            current[:start] + option + current[end + 1 :] for option in reversed(options)
        )
    return results


def _first_group(glob: str) -> tuple[int, int, list[str]] | None:
    """The first `{...}` of `glob` with a comma at its own level: where it opens and closes,
    and its options."""
    for start, char in enumerate(glob):
        if char != "{" or (start and glob[start - 1] == "\\"):
            continue
        depth = 0
        options: list[str] = []
        current = ""
        for end in range(start, len(glob)):
            c = glob[end]
            if c == "{":
                depth += 1
                if depth == 1:
                    continue
            elif c == "}":
                depth -= 1
                if depth == 0:
                    if options:
                        return start, end, [*options, current]
                    break
            elif c == "," and depth == 1:
                options.append(current)
                current = ""
                continue
            current += c
    return None
