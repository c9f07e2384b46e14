"""The paths another program names for a command's unknown words (script.Produced: find's
`{}`, the words xargs adds from `ls`), found from what is on disk now: each name there that
matches, judged as the literal path is. `find . -name '*.py' -exec grep TODO {} +` reads the
`.py` files there, not "anything"; with `.env` matched (`-name '.e*'`, `ls -A`) it is denied;
when the disk cannot say (too many entries, a symlink below `find -L`'s start (without `-L`
a symlink is a name like any, judged by where it leads), a name xargs would split or take
for an option, a starting point that is no directory) the words stay unknown and are judged
as before: asked, or denied where a deny rule could match.

What the disk shows now is what the command will see a moment later, as with globs
(glob_disk.py) and recursive reads (recursive_reads.py); a file the same command makes first
is not seen (README, Known limits)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from tether.permissions import glibc_fnmatch, steps
from tether.permissions.access import FileAccess
from tether.permissions.file_targets import Target
from tether.permissions.script import Produced
from tether.permissions.shell_places import ShellPlaces

MAX_PRODUCED = 256
"""Paths judged one by one for one command's unknown words at most; past them, not known."""

PRODUCED_WORD = "./produced"
"""A produced word as a command's options see it: a path, never an option (find names
`./x`, `src/x`; a name from `ls` that starts with `-` is not known)."""

_SPLIT = frozenset(" \t\n\"'\\")
"""Characters xargs splits at or reads as quoting: a name holding one is other words."""


def produced_targets(
    produced: Produced, places: ShellPlaces, files: FileAccess
) -> list[Target] | None:
    """Every path `produced` stands for now, or None when that is not known."""
    if produced.paths and places.options:
        return None  # `shopt -s dotglob` and the like: the glob matches more than it says
    words: list[str] = []
    for start in places.named_targets(produced.start):
        if not isinstance(start, Path):
            return None
        real = files.real(start)
        if real is None:
            return None
        if produced.deep and produced.follows:
            below = files.ctx.list_tree(real)
        elif produced.deep:
            below = files.ctx.list_tree_unentered(real)
        else:
            below = files.ctx.list_directory(real)
            below = below or None  # a file, an empty or unreadable directory: not known
        if below is None:
            return None
        steps.spend(1 + len(below) // 16)
        for name in below:
            found = _matches(PurePosixPath(name).name, produced) and _passes(
                f"{produced.start.rstrip('/') or '/'}/{name}", produced.tests
            )
            if found is None:
                return None  # a pattern whose meaning the locale decides
            if not found:
                continue
            if any(c < " " for c in name) or (
                produced.blanks and (name.startswith("-") or any(c in _SPLIT for c in name))
            ):
                return None
            if produced.paths and files.ctx.list_directory(real / name) != ():
                return None  # a directory ls lists (or one it cannot say of)
            # find names each path from its starting point; ls prints bare names.
            words.append(
                f"{produced.start.rstrip('/')}/{name}" if produced.deep or produced.paths else name
            )
            if len(words) > MAX_PRODUCED:
                return None
        top = PurePosixPath(produced.start).name or produced.start
        if produced.deep:
            found = _matches(top, produced) and _passes(produced.start, produced.tests, top)
            if found is None:
                return None
            if found:
                words.append(produced.start)  # find tests its starting point too
    return [target for word in dict.fromkeys(words) for target in places.named_targets(word)]


def _matches(name: str, produced: Produced) -> bool | None:
    """Whether `name` matches the produced words' pattern (None: the locale decides); a
    bash glob's `\\` escapes and classes are read as glibc's fnmatch reads them too."""
    if not produced.dots and name.startswith("."):
        return False
    return glibc_fnmatch.matches(name, produced.name)


def _passes(path: str, tests: tuple[tuple[str, str, bool], ...], name: str = "") -> bool | None:
    """Whether find's name tests all pass for `path` as find prints it, with glibc's
    fnmatch as find calls it (`-path`'s `*` matches `/` too; the `i` forms fold case); None
    when a pattern's meaning depends on the locale. `name`: its name for `-name`, where that
    is not its last part (a starting point `.`)."""
    name = name or PurePosixPath(path).name
    for test, pattern, negated in tests:
        subject = name if test in ("-name", "-iname") else path
        found = glibc_fnmatch.matches(subject, pattern, casefold=test.startswith("-i"))
        if found is None:
            return None
        if found == negated:
            return False
    return True
