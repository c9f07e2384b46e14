"""Which other names of a file the path rules must see (hard_links.py finds them): a deny or
ask rule on `.env` holds against `notes/envcopy` when both are one file. Looked for below the
workspace and each rule's fixed directory (`~/.ssh` for `~/.ssh/**`); a rule matching a name
anywhere (`*.pem`) needs every name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tether.permissions.context import PermissionContext
from tether.permissions.rules import Rule

_GLOB = frozenset("*?[{")

HARD_LINK_UNKNOWN = "a file with other names (hard links) that could not all be checked"


def rule_roots(
    ctx: PermissionContext, bases: Callable[[Rule], tuple[str, ...]]
) -> tuple[tuple[Path, ...], bool]:
    """The directories below which a name of a file may match a deny or ask rule on reading
    or writing, and whether one rule matches a name anywhere."""
    roots: list[Path] = list(ctx.write_roots)
    anywhere = False
    for kind in ("deny", "ask"):
        for tool in ("Read", "Edit"):
            for rule in ctx.rules.of(kind, tool):
                if rule.path is None:
                    continue
                anywhere = anywhere or rule.path.floating
                fixed = _fixed_directory(rule.path.glob)
                roots += [Path(base) / fixed for base in bases(rule)]
    return tuple(roots), anywhere


def _fixed_directory(glob: str) -> str:
    """The leading directories of a glob that hold no wildcard (`.ssh` of `.ssh/**`)."""
    parts = glob.split("/")[:-1]
    fixed: list[str] = []
    for part in parts:
        if _GLOB & set(part) or part in ("", ".", ".."):
            break
        fixed.append(part)
    return "/".join(fixed)


def link_names(
    ctx: PermissionContext, real: Path, bases: Callable[[Rule], tuple[str, ...]]
) -> tuple[Path, ...] | None:
    """The other names of `real` rules must be matched against; None when they are not
    known (past the bound, or some outside the roots while a rule matches anywhere)."""
    if not ctx.link_roots:  # the rules and anchors are the context's: found once
        ctx.link_roots.append(rule_roots(ctx, bases))
    roots, anywhere = ctx.link_roots[0]
    found = ctx.other_names(real, roots)
    if found is None:
        return None
    names, complete = found
    if not complete and anywhere:
        return None
    return names
