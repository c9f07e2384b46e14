"""Recursive reads that take only some file names (`grep -r --include='*.py'`): a Read rule
whose last segment names its files (`**/.env`, `**/*.pem`) is out of their reach when no name
can match both it and an included glob. A rule ending in `**` may name any file: it stays in
reach (the safe side)."""

from __future__ import annotations

from fnmatch import fnmatchcase

from tether.permissions.arguments import Arguments
from tether.permissions.command_spec import CommandSpec
from tether.permissions.paths import glob_tokens, globs_overlap
from tether.permissions.rules import Rule
from tether.permissions.shell_words import is_literal

_GLOB_CHARS = frozenset("*?[\\")


def may_hold(rule: Rule, only: tuple[str, ...]) -> bool:
    """Whether a read taking only base names matching `only` (empty: every name) may read a
    file `rule` covers."""
    if not only or rule.path is None:
        return True
    last = rule.path.glob.rstrip("/").rsplit("/", 1)[-1]
    if not last or "**" in last:
        return True
    if not _GLOB_CHARS & set(last):
        return any(fnmatchcase(last, glob) for glob in only)
    # Two globs for one base name (`*.pem` and `*.py`): some name may match both.
    try:
        rule_tokens = glob_tokens(last)
        return any(globs_overlap(rule_tokens, glob_tokens(glob)) for glob in only)
    except ValueError:
        return True


def included_names(args: Arguments, spec: CommandSpec, globs: list[str]) -> tuple[str, ...]:
    """grep's `--include=GLOB` values (or the `name_globs` given), when every one is a
    literal: it then reads only files whose base names match one (name_filters)."""
    if not globs and spec.files == "pattern_read" and "--include" in spec.valued_options:
        globs = args.values(("--include",))
    return tuple(globs) if all(is_literal(g) for g in globs) else ()
