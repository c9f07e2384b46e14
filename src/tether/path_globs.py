"""The `paths:` globs of a front matter (a `.claude/rules/*.md` rule's, a skill's), read and
matched as Claude Code reads and matches them, one way for both.

Reading: `paths` may be any YAML scalar or a list of them; each string is split at commas
outside braces (`src/**/*.{ts,tsx}, lib/**`), braces are expanded as Claude Code expands them
(the first `{...}` up to its first `}`, its options split at commas and trimmed, again until
none is left, within a budget past which a glob is kept as written), a trailing `/**` is taken
off (`sql/**` is `sql`), and globs that are all `**` mean every file (no scope at all).

Matching: gitignore's semantics, as Claude Code's `ignore` package (`build/` is every file
under a `build` directory, a glob without a slash but a trailing one matches at any depth, `/x`
only at the top, `**` spans directories, a later `!glob` takes files back out), on pathspec's
`GitIgnoreSpec`; pathspec is loaded only when something has paths."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from tether.slotted import Slotted

MAX_EXPANDED = 1000
"""At most this many globs from one `paths` value's braces (Claude Code's bound)."""
MAX_EXPANDED_BYTES = 4 * 1024 * 1024
"""And at most about this many characters of them (Claude Code's bound)."""

_BRACE = re.compile(r"([^{]*)\{([^}]+)\}(.*)")


class PathGlobs(Slotted):
    """What a `paths` value says: the globs as written, or None for every file; `problem`: why
    the `paths` written were not taken (then it is for every file too)."""

    __slots__ = ("globs", "problem")
    globs: Final[tuple[str, ...] | None]
    problem: Final[str | None]

    def __init__(self, globs: tuple[str, ...] | None, problem: str | None = None) -> None:
        self.globs = globs
        self.problem = problem


def path_globs(written: object) -> PathGlobs:
    """The globs of a `paths` value as YAML gave it (None: no `paths`)."""
    if written is None:
        return PathGlobs(None)
    strings = _strings(written)
    if strings is None:
        kind = type(written).__name__
        return PathGlobs(None, f"`paths` is a {kind}, not globs")
    globs = tuple(g for s in strings for g in (_unquote(w) for w in _split(s)) if g)
    patterns = expanded(globs)
    if not patterns or all(p == "**" for p in patterns):
        return PathGlobs(None)
    bad = [(p, why) for p in patterns if (why := bad_glob(p)) is not None]
    if bad:
        named = "; ".join(f"{p!r}: {why}" for p, why in bad)
        return PathGlobs(None, f"`paths` glob not valid ({named})")
    return PathGlobs(globs)


def expanded(globs: tuple[str, ...]) -> list[str]:
    """The patterns `globs` stand for, as Claude Code matches them (and tells InstructionsLoaded
    hooks): braces expanded, a trailing `/**` taken off, `./` at the start taken off (Claude
    Code's matcher never matches those; they mean the base directory)."""
    budget = _Budget()
    patterns: list[str] = []
    for glob in globs:
        for one in _braces(glob, budget):
            one = one.removesuffix("/**")
            negated = one.startswith("!")
            body = one[1:] if negated else one
            body = body.removeprefix("./")
            if body:
                patterns.append("!" + body if negated else body)
    return patterns


def paths_matcher(patterns: list[str]) -> Callable[[str], bool]:
    """A test of a path relative to the base directory (`a/b.txt`) against `patterns` (see
    `expanded`); invalid patterns are left out (`bad_glob` says which)."""
    from pathspec import GitIgnoreSpec

    spec = GitIgnoreSpec.from_lines([p for p in patterns if bad_glob(p) is None])
    return spec.match_file


def bad_glob(pattern: str) -> str | None:
    """Why `pattern` is not a gitignore pattern, or None when it is one."""
    from pathspec import GitIgnoreSpec

    try:
        GitIgnoreSpec.from_lines([pattern])
    except ValueError as e:  # pathspec's pattern error (its name differs across versions)
        return str(e)
    return None


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


class _Budget:
    """What is left of Claude Code's bound on one `paths` value's expansion."""

    __slots__ = ("chars", "results")

    def __init__(self) -> None:
        self.results = MAX_EXPANDED
        self.chars = MAX_EXPANDED_BYTES


def _braces(glob: str, budget: _Budget) -> list[str]:
    """`a/*.{ts, tsx}` -> ["a/*.ts", "a/*.tsx"], as Claude Code expands them: the first `{`
    with the first `}` after it, options split at commas and trimmed (`{a}` is `a`); a brace
    with nothing inside or none closing it stays as written; past the budget the glob is
    kept as written."""
    if "{" not in glob:
        return [glob]
    results: list[str] = []
    pending = [glob]
    while pending:
        current = pending.pop()
        found = _BRACE.fullmatch(current)
        if found is None:
            results.append(current)
            continue
        head, inside, tail = found.groups()
        options = [option.strip() for option in inside.split(",")]
        budget.chars -= len(current)
        count = len(results) + len(pending) + len(options)
        if budget.chars < 0 or count > budget.results or count * len(glob) > budget.chars:
            return [glob]
        pending.extend(head + option + tail for option in reversed(options))
    budget.results -= len(results)
    budget.chars -= len(results) * len(glob)
    return results
