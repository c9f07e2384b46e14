"""yarn's commands that run another package's scripts, read as the command they wrap:
`yarn workspace NAME CMD...` runs CMD in the package NAME, `yarn workspaces foreach
[OPTIONS] CMD...` (berry) and `yarn workspaces run CMD...` (classic) in every package. An
option of `foreach` tether does not know may take a value that would be read as the
command: not read."""

from __future__ import annotations

from tether.permissions.package_workspaces import EVERY

_FOREACH_FLAGS = frozenset(
    {"-A", "--all", "-R", "--recursive", "-p", "--parallel", "-i", "--interlaced"}
    | {"-v", "--verbose", "-t", "--topological", "--topological-dev", "-W", "--worktree"}
    | {"--no-private", "-n", "--dry-run"}
)
_FOREACH_VALUED = frozenset({"-j", "--jobs", "--include", "--exclude", "--from"})
"""Options that only narrow or order the packages: taking every one is a superset."""


def yarn_workspace(words: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | str | None:
    """(selector, the words without the wrapping) for a command running another package's
    scripts; why it is not read; None for any other command."""
    at = next((i for i, w in enumerate(words) if not w.startswith("-")), len(words))
    verb = words[at] if at < len(words) else ""
    before, rest = words[:at], words[at + 1 :]
    if verb == "workspace" and len(rest) >= 2:
        return rest[0], (*before, *rest[1:])
    if verb != "workspaces" or not rest:
        return None
    if rest[0] == "run":
        return EVERY, (*before, *rest)
    if rest[0] != "foreach":
        return None
    i = 1
    while i < len(rest) and rest[i].startswith("-"):
        option = rest[i].partition("=")[0]
        if option in _FOREACH_VALUED and "=" not in rest[i]:
            i += 2
        elif option in _FOREACH_VALUED or option in _FOREACH_FLAGS or _flag_group(option):
            i += 1
        else:
            return f"yarn workspaces foreach {rest[i]} is an option tether does not know"
    return (EVERY, (*before, *rest[i:])) if i < len(rest) else None


def _flag_group(word: str) -> bool:
    """Short flags grouped (`-pt`), as clipanion reads them."""
    return word[:1] == "-" and word[1:2] != "-" and all(f"-{c}" in _FOREACH_FLAGS for c in word[1:])
