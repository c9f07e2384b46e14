"""The `Read` deny rules as the sandbox uses them: which absolute paths they name, and the
deepest literal directory under which each can match (the sandbox hides what they name,
`tether.sandbox.denied_reads`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tether.permissions.glibc_fnmatch import NamePattern, Unjudged
from tether.permissions.rules import RuleSet

_GLOB_CHARS = frozenset("*?[\\")


NameTest = Callable[[str], bool]


def read_deny_matcher(
    rules: RuleSet, *, workspace: Path, home: Path, tool: str = "Read"
) -> tuple[Callable[[str], str | None], tuple[str, ...], NameTest | None]:
    """(the rule text an absolute, normalised path matches, or None; the literal prefixes
    under which every match lies, `/` for a name matched anywhere; a test of a last name
    that no match can fail, so that a walk skips the full match for most entries, or None
    when any name may match). `tool`: whose deny rules (`Edit`'s, for what the sandbox keeps
    read-only). A rule's base is taken as named and where its links lead (the
    sandbox walks resolved paths)."""
    anchored: list[tuple[str, Callable[[str, str], bool], tuple[str, ...]]] = []
    prefixes: list[str] = []
    names: list[NamePattern] = []
    any_name = False
    for rule in rules.of("deny", tool):
        pattern = rule.path
        if pattern is None:
            continue  # `Read` bare: the tool is not offered; the workspace stays in view
        base = pattern.base(workspace=workspace, home=home)
        bases = tuple(dict.fromkeys((base.as_posix(), os.path.realpath(base))))
        anchored.append(
            (rule.text, lambda p, b, pat=pattern: pat.matches(p, b, anywhere=True), bases)
        )
        last = _name_pattern(pattern.glob.rsplit("/", 1)[-1])
        any_name = any_name or last is None
        if last is not None:
            names.append(last)
        if pattern.floating:
            prefixes.append("/")
            continue
        literal = _literal_head(pattern.glob)
        prefixes += [f"{b.rstrip('/')}/{literal}".rstrip("/") or "/" for b in bases]

    def match(path: str) -> str | None:
        for text, matches, bases in anchored:
            if any(matches(path, b) for b in bases):
                return text
        return None

    def may_match(name: str) -> bool:
        return any(n.fullmatch(name) for n in names)

    return match, tuple(dict.fromkeys(prefixes)), None if any_name else may_match


def _name_pattern(segment: str) -> NamePattern | None:
    """The last segment of a rule's glob as a test of a file's name, read as the rule reads
    it (glibc's fnmatch, segment_globs.py); None (any name) for `**` or nothing."""
    if segment in ("", "**"):
        return None
    try:
        return NamePattern(segment)
    except Unjudged:
        return None  # a rule compiled refuses it; any name, to be safe


def _literal_head(glob: str) -> str:
    """The leading segments of `glob` without a glob character."""
    head: list[str] = []
    for segment in glob.split("/"):
        if not segment or any(c in _GLOB_CHARS for c in segment):
            break
        head.append(segment)
    return "/".join(head)
