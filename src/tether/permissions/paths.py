"""Path rules: gitignore-style patterns anchored the Claude Code way, and glob overlap tests.

A pattern is anchored by its prefix: `//abs` at the filesystem root, `~/x` at the home directory,
`/x` at the project root of the settings file that holds it, `./x` or `x` at the working
directory (the workspace). Like gitignore, a pattern without a slash matches a name at any
depth, and a pattern that matches a directory matches everything below it.

Globs that cannot be expanded here (a shell argument `s*/key.pem`, `$HOME/.ssh/id_rsa`) are
compared with patterns as languages: `globs_overlap` says whether some path could match both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from tether.permissions import steps
from tether.permissions.segment_globs import SegmentGlob, class_end

# Glob tokens: a one-character string is that literal character; the ints stand for a set.
ONE = 1
"""Any one character except `/`."""
STAR = 2
"""Any run of characters without `/`."""
ANY = 3
"""Any run of characters, `/` included."""
ONE_NODOT = 4
"""One character, neither `/` nor `.` (a shell glob's first character in a name: `*` and `?`
do not match a leading dot)."""
STAR_NODOT = 5
"""A shell `*` starting a name: nothing, or ONE_NODOT then STAR. Expanded by `expand_nodot`
before an overlap test."""
Token = str | int
Tokens = tuple[Token, ...]

Anchor = Literal["root", "home", "project", "cwd"]

_MAX_SEEN = 4096
"""Answers one pattern keeps (`PathPattern.matches`)."""


@dataclass(frozen=True)
class PathPattern:
    """A compiled path specifier such as `./.env`, `src/**` or `~/.ssh/**`."""

    text: str
    anchor: Anchor
    glob: str
    """The pattern below the anchor, without leading `./` or `/`."""
    project_root: Path | None = None
    """For `/x` patterns: the directory holding the settings file's `.claude`/`.tether`."""
    floating: bool = False
    """No slash inside: matches the name at any depth (gitignore)."""
    _below: SegmentGlob = field(init=False, repr=False, compare=False)
    _tokens: Tokens = field(init=False, repr=False, compare=False)
    _forms: tuple[Tokens, ...] = field(init=False, repr=False, compare=False)
    _seen: dict[tuple[str, str, bool], bool] = field(
        init=False, repr=False, compare=False, hash=False
    )
    """Paths matched so far (a pure answer, kept for the session: the workspace's paths
    come back decision after decision); emptied when it grows past `_MAX_SEEN`."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "_seen", {})
        below = SegmentGlob.of(self.glob, floating=self.floating)
        object.__setattr__(self, "_below", below)
        object.__setattr__(self, "_tokens", glob_tokens(self.glob))
        object.__setattr__(self, "_forms", glob_token_forms(self.glob))

    def base(self, *, workspace: Path, home: Path) -> Path:
        """The directory the pattern hangs from. Relative patterns start at the directory the
        session works in (the workspace), not wherever a shell has since `cd`-ed to: a rule
        must not move under the command it judges."""
        if self.anchor == "root":
            return Path("/")
        if self.anchor == "home":
            return home
        if self.anchor == "project":
            return self.project_root or workspace
        return workspace

    def matches(self, path: str, base: str, *, anywhere: bool) -> bool:
        """Whether `path` (absolute, normalised, as a string) matches when anchored at `base`.
        `anywhere` lets a floating pattern match outside its base too, which deny and ask rules
        want (`Read(*.pem)` means every .pem file)."""
        key = (path, base, anywhere)
        found = self._seen.get(key)
        if found is None:
            if len(self._seen) >= _MAX_SEEN:
                self._seen.clear()
            found = self._seen[key] = self._matches(path, base, anywhere=anywhere)
        return found

    def _matches(self, path: str, base: str, *, anywhere: bool) -> bool:
        if self.floating and anywhere:
            return self._below.fullmatch(path.lstrip("/"))
        below = relative_below(path, base)
        if below is None:
            return False
        return not self.glob if below == "" else self._below.fullmatch(below)

    def overlaps(self, candidate: Tokens, base: str, *, anywhere: bool) -> bool:
        """Whether some path matched by the glob `candidate` (absolute tokens) could match
        when anchored at `base` (absolute, normalised, as a string)."""
        if self.floating and anywhere:
            prefix: Tokens = (ANY, "/")
        else:
            prefix = (*_literal_tokens(base.rstrip("/")), "/")
            if self.floating:
                prefix = (*prefix, ANY)
        bodies = [(*prefix, *form) for form in self._forms] if self.glob else [(*prefix, ANY)]
        return any(
            globs_overlap(candidate, body) or globs_overlap(candidate, (*body, "/", ANY))
            for body in bodies
        )


def compile_path_pattern(text: str, *, project_root: Path | None) -> PathPattern:
    """Parse a path specifier; raises ValueError with a short reason when it is unusable."""
    if not text:
        raise ValueError("empty path pattern")
    if "\x00" in text:
        raise ValueError("path pattern contains a NUL byte")
    anchor: Anchor
    if text.startswith("//"):
        anchor, rest = "root", text[2:]
    elif text == "~" or text.startswith("~/"):
        anchor, rest = "home", text[2:]
    elif text.startswith("/"):
        anchor, rest = "project", text[1:]
    else:
        anchor, rest = "cwd", text
    explicit = anchor != "cwd" or rest.startswith("./")
    while rest.startswith("./"):
        rest = rest[2:]
    if rest in (".", ""):
        rest = ""
    _check_brackets(rest)
    floating = not explicit and bool(rest) and "/" not in rest.rstrip("/")
    return PathPattern(
        text=text,
        anchor=anchor,
        glob=rest.rstrip("/"),
        project_root=project_root if anchor == "project" else None,
        floating=floating,
    )


def _check_brackets(glob: str) -> None:
    i = 0
    while i < len(glob):
        if glob[i] == "\\":
            i += 2
            continue
        if glob[i] == "[" and class_end(glob, i) < 0:
            raise ValueError("unclosed '[' in path pattern")
        i += 1


def glob_tokens(glob: str) -> Tokens:
    """Tokens of a gitignore-style glob; classes become ONE (a superset, which is what an
    overlap test that must not miss wants)."""
    out: list[Token] = []
    i = 0
    n = len(glob)
    while i < n:
        c = glob[i]
        if glob.startswith("**", i):
            out.append(ANY)
            i += 2
            if i < n and glob[i] == "/" and (i - 2 == 0 or glob[i - 3] == "/"):
                i += 1  # `**/` may also stand for nothing
        elif c == "*":
            out.append(STAR)
            i += 1
        elif c == "?":
            out.append(ONE)
            i += 1
        elif c == "[" and class_end(glob, i) > 0:
            out.append(ONE)
            i = class_end(glob, i) + 1
        elif c == "\\" and i + 1 < n:
            out.append(glob[i + 1])
            i += 2
        else:
            out.append(c)
            i += 1
    return tuple(out)


def glob_token_forms(glob: str, limit: int = 3) -> tuple[Tokens, ...]:
    """The glob's tokens with each `**/` that starts a name in its two forms: nothing, or a run
    that ends a directory name (ANY then `/`), so that `**/.env` overlaps `x/.env` but not
    `x.env`, which one ANY for both would. Past `limit` of them, plain ANY (wider)."""
    pieces = re.split(r"(?:(?<=/)|^)\*\*/", glob)
    if len(pieces) == 1:
        return (glob_tokens(glob),)
    if len(pieces) - 1 > limit:
        return (glob_tokens(glob),)
    forms: list[Tokens] = [glob_tokens(pieces[0])]
    for piece in pieces[1:]:
        rest = glob_tokens(piece)
        forms = [f for form in forms for f in ((*form, *rest), (*form, ANY, "/", *rest))]
    return tuple(dict.fromkeys(forms))


def _literal_tokens(text: str) -> Tokens:
    return tuple(text)


def globs_overlap(a: Sequence[Token], b: Sequence[Token]) -> bool:
    """Whether some string matches both token sequences (reachability in the product of the two
    automata: each token is a state, STAR and ANY loop on themselves)."""
    # A literal character leading (or ending) both must be the string's first (or last)
    # character: compared at once, so two long absolute paths cost no search.
    start = 0
    for x, y in zip(a, b, strict=False):
        if x.__class__ is not str or y.__class__ is not str:
            break
        if x != y:
            return False
        start += 1
    na, nb = len(a), len(b)
    while na > start and nb > start:
        x, y = a[na - 1], b[nb - 1]
        if x.__class__ is not str or y.__class__ is not str:
            break
        if x != y:
            return False
        na, nb = na - 1, nb - 1
    if start or na < len(a) or nb < len(b):
        return product_search(a[start:na], b[start:nb])
    return product_search(a, b)


def product_search(a: Sequence[Token], b: Sequence[Token]) -> bool:
    """`globs_overlap` without its shortcuts: the search in the product of the automata. Each
    state searched is a step of the decision (steps.py): the product of a long glob and a long
    pattern is large. The same pair (a rule's pattern against the same path's tail, decision
    after decision) is answered from a bounded memo, its steps spent again, so a decision's
    count (and whether it runs out) is the same either way."""
    before = steps.used()
    if before is None:
        return first_overlap(a, b, (0,)) is not None
    key = (tuple(a), tuple(b))
    known = _SEARCHED.get(key)
    if known is not None:
        steps.spend(known[1])
        return known[0]
    found = first_overlap(a, b, (0,)) is not None
    if len(_SEARCHED) >= _MAX_SEARCHED:
        _SEARCHED.clear()
    _SEARCHED[key] = (found, (steps.used() or 0) - before)
    return found


_SEARCHED: dict[tuple[tuple[Token, ...], tuple[Token, ...]], tuple[bool, int]] = {}
_MAX_SEARCHED = 4096
"""Pairs remembered at most (then forgotten all at once)."""


def first_overlap(a: Sequence[Token], b: Sequence[Token], starts: Sequence[int]) -> int | None:
    """The first of `starts` from which some suffix `a[start:]` overlaps `b`, or None. One
    search for all of them: a state reached from an earlier start that failed leads nowhere."""
    seen: set[tuple[int, int]] = set()
    for start in starts:
        if _reaches_end(a, b, start, seen):
            return start
    return None


def _reaches_end(
    a: Sequence[Token], b: Sequence[Token], start: int, seen: set[tuple[int, int]]
) -> bool:
    na, nb = len(a), len(b)
    stack = [(start, 0)]
    unspent = 0
    try:
        while stack:
            state = stack.pop()
            if state in seen:
                continue
            seen.add(state)
            unspent += 1
            if unspent >= _STATES_PER_STEP * 64:
                steps.spend(unspent // _STATES_PER_STEP)
                unspent = 0
            i, j = state
            if i == na and j == nb:
                return True
            ta = a[i] if i < na else None
            tb = b[j] if j < nb else None
            if ta in (STAR, ANY):
                stack.append((i + 1, j))
            if tb in (STAR, ANY):
                stack.append((i, j + 1))
            if ta is None or tb is None or not _chars_meet(ta, tb):
                continue
            ni = i if ta in (STAR, ANY) else i + 1
            nj = j if tb in (STAR, ANY) else j + 1
            if (ni, nj) != (i, j):
                stack.append((ni, nj))
            elif isinstance(ta, int) and isinstance(tb, int):
                # Both loop: one shared character changes nothing; leaving is covered above.
                continue
        return False
    finally:
        steps.spend(unspent // _STATES_PER_STEP)


_STATES_PER_STEP = 4
"""States of a glob product searched in about the time of one step (steps.py)."""


def _chars_meet(a: Token, b: Token) -> bool:
    """Whether one character can be consumed by both tokens."""
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    if isinstance(a, str):
        a, b = b, a
    if isinstance(b, str):
        assert isinstance(a, int)
        if a == ANY:
            return True
        return b not in "/." if a == ONE_NODOT else b != "/"
    return True


def expand_nodot(tokens: Tokens, limit: int = 3) -> list[Tokens]:
    """The alternatives a STAR_NODOT stands for (past `limit` of them, a plain STAR, which
    only widens the language)."""
    steps.spend(len(tokens) // _STATES_PER_STEP)
    places = [i for i, token in enumerate(tokens) if token == STAR_NODOT]
    if not places:
        return [tokens]
    expanded, widened = places[:limit], places[limit:]
    plain = list(tokens)
    for i in widened:
        plain[i] = STAR
    alternatives: list[Tokens] = []
    for choice in range(1 << len(expanded)):
        out: list[Token] = []
        start = 0
        for bit, i in enumerate(expanded):
            out += plain[start:i]
            if choice >> (len(expanded) - 1 - bit) & 1:
                out += (ONE_NODOT, STAR)
            start = i + 1
        out += plain[start:]
        alternatives.append(tuple(out))
    steps.spend(len(tokens) * (len(alternatives) - 1) // _STATES_PER_STEP)
    return alternatives


def normalize(path: Path) -> Path:
    """Absolute path with `.` and `..` folded lexically (symlinks untouched)."""
    parts: list[str] = []
    components = path.as_posix().split("/")
    steps.spend(2 + len(components) // 8)
    for part in components:
        if part == "..":
            if parts:
                parts.pop()
        elif part and part != ".":
            parts.append(part)
    return Path("/" + "/".join(parts))


def relative_below(path: str, base: str) -> str | None:
    """`path` relative to `base` ("" for base itself), or None when it is not below it (both
    absolute and normalised)."""
    if path == base:
        return ""
    if base == "/":
        return path[1:]
    if path.startswith(base) and path[len(base)] == "/":
        return path[len(base) + 1 :]
    return None


def is_below(path: Path, roots: Sequence[Path], *, strictly: bool = False) -> bool:
    """Whether `path` is one of `roots` or inside one (strictly: inside, not the root itself)."""
    text = path.as_posix()
    for root in roots:
        below = relative_below(text, root.as_posix())
        if below is not None and not (strictly and below == ""):
            return True
    return False
