"""Whether a file is one a rule's `paths` name, as Claude Code decides it: gitignore's
semantics (it matches with the `ignore` package), relative to the directory holding the rule's
`.claude`. So `build/` is every file under a `build` directory, a glob with no slash but a
trailing one (`*.md`, `sql`) matches at any depth, `/x` only at the top, `**` spans
directories, and a later `!glob` takes files back out. The matching is pathspec's
`GitIgnoreSpec`, kept to git's own rules; loaded only when a rule has paths."""

from __future__ import annotations

from collections.abc import Callable


def paths_matcher(patterns: list[str]) -> Callable[[str], bool]:
    """A test of a path relative to the rule's directory (`a/b.txt`) against `patterns` (see
    `rule_paths.expanded`); invalid patterns are left out (`bad_glob` says which)."""
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
