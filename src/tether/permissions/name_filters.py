"""Recursive reads that take only some file names (`grep -r --include='*.py'`): a Read rule
whose last segment names its files (`**/.env`, `**/*.pem`) is out of their reach when no name
can match both it and an included glob. A rule ending in `**` may name any file: it stays in
reach (the safe side)."""

from __future__ import annotations

import os

from tether.permissions import glibc_fnmatch
from tether.permissions.arguments import Arguments
from tether.permissions.command_spec import CommandSpec
from tether.permissions.paths import glob_tokens, globs_overlap
from tether.permissions.rules import Rule
from tether.permissions.shell_words import is_literal

_GLOB_CHARS = frozenset("*?[\\")


def passes(name: str, only: tuple[str, ...]) -> bool:
    """Whether a file's base name may pass the filter `only`: it may match an included glob
    (or none is given) and surely matches no excluded one (`!GLOB`). Globs are matched as
    glibc's fnmatch does (`'.\\env'` is `.env`); one whose meaning the locale decides
    matches for an inclusion and not for an exclusion (more is judged, never less)."""
    included = [g for g in only if not g.startswith("!")]
    if included and not any(_may_match(name, g) for g in included):
        return False
    return not any(_surely_matches(name, g.lstrip("!")) for g in only if g.startswith("!"))


def _may_match(name: str, glob: str) -> bool:
    return glibc_fnmatch.matches(name, glob) is not False


def _surely_matches(name: str, glob: str) -> bool:
    return glibc_fnmatch.matches(name, glob) is True


def files_left(below: tuple[str, ...] | None, only: tuple[str, ...]) -> tuple[str, ...] | None:
    """The paths of a tree listing that a read filtering files out by name (`!!GLOB`: grep
    --exclude) still takes: what is below an excluded name is kept when it is a directory."""
    dropped = tuple(g[2:] for g in only if g.startswith("!!"))
    if below is None or not dropped:
        return below
    return tuple(
        p
        for p in below
        if not any(_surely_matches(p.rstrip("/").rsplit("/", 1)[-1], g) for g in dropped)
    )


def may_hold(rule: Rule, only: tuple[str, ...]) -> bool:
    """Whether a read taking only base names that pass `only` (empty: every name; `!GLOB`:
    none matching GLOB) may read a file `rule` covers."""
    if not only or rule.path is None:
        return True
    last = rule.path.glob.rstrip("/").rsplit("/", 1)[-1]
    if not last or "**" in last:
        return True
    # `!!GLOB` leaves out files only (grep --exclude): a directory of that name is read.
    if any(_excludes(g[1:], last) for g in only if g.startswith("!") and g[1:2] != "!"):
        return False
    included = [g for g in only if not g.startswith("!")]
    if not included:
        return True
    if not _GLOB_CHARS & set(last):
        return any(_may_match(last, glob) for glob in included)
    # Two globs for one base name (`*.pem` and `*.py`): some name may match both.
    try:
        rule_tokens = glob_tokens(last)
        return any(globs_overlap(rule_tokens, glob_tokens(glob)) for glob in included)
    except ValueError:
        return True


def _excludes(glob: str, last: str) -> bool:
    """Whether every base name `last` (a rule's last segment) stands for matches `glob`: a
    name itself, or a glob whose fixed start a `PREFIX*` glob covers (`.env*` and `.env.*`)."""
    if not _GLOB_CHARS & set(last):
        return _surely_matches(last, glob)
    if glob == last:
        return True
    prefix = glob[:-1]
    fixed = last[: min((last.index(c) for c in _GLOB_CHARS if c in last), default=len(last))]
    return glob.endswith("*") and not _GLOB_CHARS & set(prefix) and fixed.startswith(prefix)


_RG_HIDDEN = frozenset({"--hidden", "-."})
_RG_UNRESTRICTED = frozenset({"-u", "--unrestricted"})


def included_names(args: Arguments, spec: CommandSpec, globs: list[str]) -> tuple[str, ...]:
    """The base-name filter of a recursive read (may_hold), when every glob is a literal:
    grep's `--include=GLOB` values (or the `name_globs` given) and its `--exclude=GLOB` ones
    (as `!!GLOB`: files only; `!GLOB` with an `--exclude-dir` of the same glob and no
    `--include`); rg's `-g`/`--glob` and `--iglob` ones (`!GLOB` excludes directories too;
    one a later included glob may take back is dropped; none when an included one holds a
    `/`; case-insensitive ones matched so: `_rg_globs`),
    and `!.*` unless it searches hidden files (`--hidden`, `-.`, `-uu`; or its configuration
    file: `configured`)."""
    if not globs and spec.files == "pattern_read" and "--include" in spec.valued_options:
        globs = args.values(("--include",))
        # `--exclude-dir` of the same glob leaves out the directories of that name too; with
        # an `--include` (the last matching one wins) a file is left out by `--exclude` only.
        directories = () if globs else tuple(args.values(("--exclude-dir",)))
        globs += [("!" if g in directories else "!!") + g for g in args.values(("--exclude",))]
    elif not globs and spec.files == "pattern_read" and "--glob" in spec.valued_options:
        found = _rg_globs(args)
        if found is None:
            return ()
        # rg matches the `--iglob` globs after the `-g` ones; an exclusion counts only when
        # no included glob may follow it in either order.
        plain, folded = ([g for g in kind if "/" not in g] for kind in found)
        kept = _last_wins([*folded, *plain])
        globs = [g for g in _last_wins([*plain, *folded]) if not g.startswith("!") or g in kept]
        unrestricted = sum(1 for name, _ in args.options if name in _RG_UNRESTRICTED)
        hidden = args.has(_RG_HIDDEN) or unrestricted >= 2
        if not hidden:
            globs.append(RG_UNHIDDEN)
    return tuple(globs) if all(is_literal(g) for g in globs) else ()


def _rg_globs(args: Arguments) -> tuple[list[str], list[str]] | None:
    """rg's globs: the case-sensitive `-g`/`--glob` ones, and the case-insensitive ones
    (`--iglob`; `-g` too with `--glob-case-insensitive`), each with both cases of its
    letters (`*.PY`: `*.[pP][yY]`). None when they cannot be judged by base names: an
    included glob with a `/` (`-g 'src/**'` takes a path, whatever its name), a
    case-insensitive one with a class or an escape, or more alternatives than are counted."""
    insensitive = False
    for name, _ in args.options:
        if name in ("--glob-case-insensitive", "--no-glob-case-insensitive"):
            insensitive = name == "--glob-case-insensitive"
    plain = _expanded(args.values(("-g", "--glob")))
    folded = _expanded(args.values(("--iglob",)))
    if plain is None or folded is None:
        return None
    if insensitive:
        plain, folded = [], [*plain, *folded]
    if any(_GLOB_CHARS & set("[\\") & set(g) for g in folded):
        return None
    if any(_globset_differs(g) for g in plain):
        return None
    folded = [_both_cases(g) for g in folded]
    if any("/" in g for g in [*plain, *folded] if not g.startswith("!")):
        return None
    return plain, folded


def _globset_differs(glob: str) -> bool:
    """Whether ripgrep's globset may read a class in `glob` otherwise than glibc's fnmatch
    (which `passes` follows): it knows no POSIX class (`[[:alpha:]]` is `[` `:` `a`...
    then a `]`), and an escape inside a class is its own."""
    return "[" in glob and ("[[" in glob or "\\" in glob[glob.index("[") :])


_MAX_ALTERNATIVES = 64


def _expanded(globs: list[str]) -> list[str] | None:
    """rg's globs with their `{a,b}` alternations spelled out, one glob each (`!` kept on
    each: `!{.env,x}` is `!.env` and `!x`); None when they are too many to count."""
    found: list[str] = []
    for glob in globs:
        negated = "!" if glob.startswith("!") else ""
        spelled = _alternatives(glob[len(negated) :])
        if spelled is None or len(found) + len(spelled) > _MAX_ALTERNATIVES:
            return None
        found += [negated + g for g in spelled]
    return found


def _alternatives(glob: str) -> list[str] | None:
    """The globs `glob`'s first `{...}` group (nested ones too) stands for, as ripgrep's
    globset reads it: a `{` escaped (`\\{`) or in a class (`[{]`) is a character; an
    unclosed group is left as written (rg refuses the glob). None when they are too many."""
    i = 0
    while i < len(glob):
        c = glob[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            end = glob.find("]", i + 2)
            i = len(glob) if end < 0 else end + 1
            continue
        if c == "{":
            break
        i += 1
    else:
        return [glob]
    depth, start, parts = 0, i + 1, list[str]()
    j = i
    while j < len(glob):
        c = glob[j]
        if c == "\\":
            j += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                parts.append(glob[start:j])
                break
        elif c == "," and depth == 1:
            parts.append(glob[start:j])
            start = j + 1
        j += 1
    else:
        return [glob]
    found: list[str] = []
    for part in parts:
        spelled = _alternatives(glob[:i] + part + glob[j + 1 :])
        if spelled is None or len(found) + len(spelled) > _MAX_ALTERNATIVES:
            return None
        found += spelled
    return found


def _both_cases(glob: str) -> str:
    """A glob without classes matching as it does case-insensitively (`*.PY`: `*.[pP][yY]`)."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.lower() != c.upper() else c for c in glob)


def _last_wins(globs: list[str]) -> list[str]:
    """rg's globs, of which the one given last that matches a name decides: an exclusion
    (`!GLOB`) that a later included glob may take back (`-g '!.env' -g '*'`) excludes
    nothing sure, so it is left out (more is asked, never less)."""
    last_included = max((i for i, g in enumerate(globs) if not g.startswith("!")), default=-1)
    return [g for i, g in enumerate(globs) if not g.startswith("!") or i > last_included]


RG_UNHIDDEN = "!.*"
"""rg's own filter: no hidden file or directory, unless its options say otherwise."""


def configured(program: str, only: tuple[str, ...]) -> tuple[str, ...]:
    """`only` as the program's configuration may change it now: a file RIPGREP_CONFIG_PATH
    names gives rg options (`--hidden`) that tether does not read."""
    if program == "rg" and "RIPGREP_CONFIG_PATH" in os.environ:
        return tuple(g for g in only if g != RG_UNHIDDEN)
    return only
