"""The `Read` deny rules as the sandbox uses them: which absolute paths they name, and the
deepest literal directory under which each can match (the sandbox hides what they name,
`tether.sandbox.denied_reads`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tether.permissions.rules import RuleSet

_GLOB_CHARS = frozenset("*?[\\")


def read_deny_matcher(
    rules: RuleSet, *, workspace: Path, home: Path
) -> tuple[Callable[[str], str | None], tuple[str, ...]]:
    """(the rule text an absolute, normalised path matches, or None; the literal prefixes
    under which every match lies, `/` for a name matched anywhere). A rule's base is taken
    as named and where its links lead (the sandbox walks resolved paths)."""
    anchored: list[tuple[str, Callable[[str, str], bool], tuple[str, ...]]] = []
    prefixes: list[str] = []
    for rule in rules.of("deny", "Read"):
        pattern = rule.path
        if pattern is None:
            continue  # `Read` bare: the tool is not offered; the workspace stays in view
        base = pattern.base(workspace=workspace, home=home)
        bases = tuple(dict.fromkeys((base.as_posix(), os.path.realpath(base))))
        anchored.append(
            (rule.text, lambda p, b, pat=pattern: pat.matches(p, b, anywhere=True), bases)
        )
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

    return match, tuple(dict.fromkeys(prefixes))


def _literal_head(glob: str) -> str:
    """The leading segments of `glob` without a glob character."""
    head: list[str] = []
    for segment in glob.split("/"):
        if not segment or any(c in _GLOB_CHARS for c in segment):
            break
        head.append(segment)
    return "/".join(head)
