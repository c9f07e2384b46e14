"""Paths in a process's directory under `/proc` (and `/dev/fd`) written with unknown parts:
what a pattern such as `/proc/$$/cwd/x` or `/proc/*/root/x` may stand for in this file system
(access.py matches rules against it). Its `cwd/x` stands for x from the shell's directory and
the workspace, its `root/x` for /x, and any other link (`fd/N/x`, `task/<t>/cwd/x`, a link
name not known) for any path ending as it ends; the process's own files (`environ`, `maps`)
for nothing else.
"""

from __future__ import annotations

from pathlib import Path

from tether.permissions.paths import ANY, ONE, STAR, Tokens, globs_overlap

_PROCESS_DIRECTORIES: tuple[Tokens, ...] = (
    (*"/proc/", ONE, STAR, "/", ANY),
    (*"/dev/fd/", ANY),
)
"""Paths in a process's directory: `/proc/<pid|self|thread-self>/...`, and `/dev/fd/N`
(`/proc/self/fd/N`)."""
_PROC: Tokens = tuple("/proc/")
_LINKS_OUT = frozenset({"root", "cwd", "exe", "fd", "task", "map_files"})
"""What in a process's directory leads to files elsewhere (`task/<t>/` holds them again)."""
PROCESS_UNKNOWN = "which may be in a process's directory under /proc (its links are not paths)"


def through_link(entries: tuple[str, ...]) -> bool:
    """Whether a path in a process's directory (its entries after `/proc/<p>/`) goes through a
    link there into a directory elsewhere, other than `root/x` and `cwd/x` (which stand for
    paths here): `fd/N/x`, `task/<t>/cwd/x`, `map_files/R/x`."""
    if entries[:1] == ("task",):
        entries = entries[2:]
        if entries[:1] in (("root",), ("cwd",)):
            return len(entries) > 1
    if entries[:1] in (("fd",), ("map_files",)):
        return len(entries) > 2
    return False


def may_be_process_path(form: Tokens) -> bool:
    return any(globs_overlap(form, place) for place in _PROCESS_DIRECTORIES)


def ending(form: Tokens) -> Tokens:
    """Any path ending as `form` ends: its last component below anything."""
    cut = len(form) - form[::-1].index("/") if "/" in form else 0
    return (ANY, "/", *form[cut:]) if cut < len(form) else (ANY,)


def pattern_stand_ins(form: Tokens, bases: tuple[Path, Path]) -> list[Tokens]:
    """What a pattern that may name a path in a process's directory may stand for:
    `/proc/<p>/root/x` is `/x` and `/proc/<p>/cwd/x` is `x` below each of `bases` (the
    shell's directory, the workspace), as for a literal path; anything else (`fd/N`, `task/<t>/
    cwd`, a link or a directory not known: `/proc/$$/c*`, `$X/x`) any path ending as it
    ends."""
    if form[: len(_PROC)] == _PROC:
        rest = form[len(_PROC) :]
        pid_end = rest.index("/") if "/" in rest else -1
        link = rest[pid_end + 1 :] if pid_end >= 0 and ANY not in rest[:pid_end] else ()
        end = link.index("/") if "/" in link else len(link)
        name = "".join(t for t in link[:end] if isinstance(t, str))
        tail = link[end + 1 :]
        climbs = any(tail[i : i + 2] == (".", ".") for i in range(len(tail)))
        known = len(name) == end and end > 0
        if known and name not in _LINKS_OUT:
            return []  # the process's own data (`environ`, `maps`): not another path
        if known and name == "root" and not climbs:
            return [("/", *tail)]
        if known and name == "cwd" and not climbs:
            return [(*base.as_posix().rstrip("/"), "/", *tail) for base in bases]
    return [ending(form)]


def _at_link(entries: list[str]) -> bool:
    """Whether a process directory's entries end at one of its links (`cwd`, `root`, `exe`,
    `fd/N`, `map_files/R`, the same under `task/<t>/`), which lead elsewhere."""
    if entries[:1] == ["task"] and len(entries) > 2:
        entries = entries[2:]
    if len(entries) == 1:
        return entries[0] in ("cwd", "root", "exe")
    return len(entries) == 2 and entries[0] in ("fd", "map_files")


def fold_process_path(path: Path) -> Path:
    """`path` in a process's directory (`/proc/<p>/...`, as the kernel reaches it: `/dev/fd`
    is `/proc/self/fd`) with the `..` that climb its real directories applied, as the kernel
    does: `/proc/self/fd/../cwd/x` is `/proc/self/cwd/x`, `/proc/self/../x` is `/proc/x`.
    Folding stops at a link (`cwd`, `root`, `fd/N`): what follows is kept as written, for
    the link leads elsewhere (lexical folding would give `/dev/cwd/x`)."""
    parts = path.parts
    if len(parts) < 3 or parts[:2] != ("/", "proc"):
        return path
    below: list[str] = []
    rest = parts[3:]
    for i, name in enumerate(rest):
        if name == ".":
            continue
        if name == "..":
            if not below:
                return Path("/proc", *rest[i + 1 :])
            below.pop()
            continue
        below.append(name)
        if _at_link(below):
            return Path("/proc", parts[2], *below, *rest[i + 1 :])
    return Path("/proc", parts[2], *below)
