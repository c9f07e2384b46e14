"""Which files a `git diff`, `git log` or `git show` prints the content of, asked of git
before it runs (the default of `PermissionContext.git_shown`): the same command with its
revisions, limits and pathspecs, listing names instead of patches (`--name-only`, renames
split so that a renamed file's old name counts). A repository whose history once held `.env`
then lets `git diff` or `git log -1 -p` run when what they print does not hold it now.

Answered only for the options listed here, for commits (and paths); anything else (a tree or
a blob, `REV:PATH`, an option not listed, a word git rejects) is not known: None, and the
whole history counts as before. Only for a command line in which nothing changes the files
first (git_history_check.tree_stays): `git add -f .env && git diff --cached` is not known."""

from __future__ import annotations

import re
from pathlib import Path

from tether.permissions.git_probes import git_in, work_tree_top

_SHOWN_BY = frozenset({"diff", "log", "show"})
_FORMAT = frozenset(
    {"-p", "-u", "--patch", "--stat", "--oneline", "--color", "--no-color", "-w", "-b"}
    | {"--ignore-all-space", "--ignore-space-change", "--no-ext-diff", "--abbrev-commit"}
)
"""How the output looks, not what it holds: dropped from the question."""
_FORMAT_PREFIXES = ("-U", "--unified=", "--color=", "--word-diff", "--format=", "--pretty=")
_SELECT = frozenset({"--cached", "--staged", "--no-merges", "--first-parent", "--reverse"})
"""Which changes are shown: kept in the question (`--staged` only for diff)."""
_COUNT = re.compile(r"-[0-9]+|--max-count=[0-9]+|-n[0-9]+")
_REVISION = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./~^@{}-]*")
MAX_SHOWN = 5_000
"""Files one command may be known to print; past them, not known."""


def shown_files(directory: Path, args: tuple[str, ...]) -> tuple[str, ...] | None:
    """The files (absolute) whose content `git ARGS` prints, run from `directory` (resolved),
    or None when that is not known (module docstring)."""
    if not args or args[0] not in _SHOWN_BY:
        return None
    sub, rest = args[0], args[1:]
    kept: list[str] = []
    specs: list[str] = []
    items = iter(rest)
    for word in items:
        if word == "--":
            specs = ["--", *items]
            break
        if word in _FORMAT or word.startswith(_FORMAT_PREFIXES):
            continue
        if word in _SELECT or _COUNT.fullmatch(word):
            if word in ("--cached", "--staged") and sub != "diff":
                return None
            kept.append(word)
        elif word == "-n":
            count = next(items, "")
            if not count.isdigit():
                return None
            kept += ["-n", count]
        elif word.startswith("-") or ":" in word or not _REVISION.fullmatch(word):
            return None
        else:
            kept.append(word)  # a revision or a path: git tells them apart as it will
    found = work_tree_top(directory)
    if found is None or not all(_no_other_object(directory, w) for w in kept):
        return None
    listing = ("--name-only", "--no-renames", "--no-ext-diff", "--no-textconv", "-z")
    if sub != "diff":
        listing = ("--format=", *listing)
    out = git_in(directory, sub, *listing, *kept, *specs)
    if out is None:
        return None
    names = {name for name in out.split("\0") if name.strip()}
    if len(names) > MAX_SHOWN:
        return None
    base = found[0].as_posix().rstrip("/")
    return tuple(sorted(f"{base}/{name.strip()}" for name in names))


def _no_other_object(directory: Path, word: str) -> bool:
    """Whether `word` names a commit or no object at all (a path, an option): a tree or a
    blob (`HEAD^{tree}`, a tag of a blob) is printed whole, not as changes of files."""
    if word.startswith("-"):
        return True
    if git_in(directory, "rev-parse", "--verify", "-q", "--end-of-options", word + "^{commit}"):
        return True
    return git_in(directory, "rev-parse", "--verify", "-q", "--end-of-options", word) is None
