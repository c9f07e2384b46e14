"""Paths as the kernel resolves them, shared by the permission engine and the file tools so
that what the engine judges is what a tool opens.

The kernel walks a path component by component and follows a symlink as soon as it meets one,
so a later `..` climbs from where the link led, not from the link's name: with `src/self -> .`,
`src/self/../.env` is `./.env`, not `src/.env` (which lexical folding would give). Directories
of processes under `/proc` (`/proc/self/root`, `/proc/<pid>/cwd`, `/proc/self/fd/3`) hold
"magic" links that lead to another process's view of the world, a pipe, a deleted file:
resolution stops there and returns the rest as written.

It sits at the bottom layer beside `processes`, so that every service can use it.
"""

from __future__ import annotations

import errno
import os
import pwd
import stat
from collections.abc import Callable
from pathlib import Path, PurePath

MAX_SYMLINKS = 40
"""Links followed in one resolution before the kernel gives up with ELOOP (Linux's limit)."""

_PROCESS_NAMES = frozenset({"self", "thread-self"})


def kernel_resolve(
    path: PurePath | str,
    *,
    readlink: Callable[[str], str] = os.readlink,
    is_dir: Callable[[str], bool] | None = None,
) -> Path | None:
    """The absolute, symlink-free path the kernel would open for the absolute `path`.

    Components that do not exist are kept as written (a file about to be created). None when
    the kernel's answer is not known or is a failure: a symlink loop or more than
    `MAX_SYMLINKS` links (ELOOP), a link that cannot be read, `..` after a missing component
    or a non-directory (ENOENT, ENOTDIR). A path reaching a process directory under `/proc`
    comes back with the links before it followed and the rest as written (see
    `is_process_path`). `readlink` and `is_dir` stand in for the filesystem in tests."""
    text = path if isinstance(path, str) else path.as_posix()
    if not text.startswith("/"):
        raise ValueError(f"not an absolute path: {text}")
    check_dir = is_dir or _is_dir
    pending = [p for p in reversed(text.split("/")) if p not in ("", ".")]
    resolved: list[str] = []
    links = 0
    missing = False
    while pending:
        name = pending.pop()
        if name in ("", "."):
            continue
        if name == "..":
            if missing or (resolved and not check_dir("/" + "/".join(resolved))):
                return None
            if resolved:
                resolved.pop()
            continue
        resolved.append(name)
        if missing:
            continue
        if _in_process_dir(resolved):
            return Path("/" + "/".join((*resolved, *reversed(pending))))
        current = "/" + "/".join(resolved)
        try:
            target = readlink(current)
        except ValueError:
            return None  # a NUL byte or an unencodable name: nothing the kernel can open
        except OSError as e:
            if e.errno == errno.EINVAL:
                continue  # there, and not a link
            if e.errno in (errno.ENOENT, errno.ENOTDIR):
                missing = True
                continue
            return None
        links += 1
        if links > MAX_SYMLINKS or not target:
            return None
        resolved.pop()
        if target.startswith("/"):
            resolved.clear()
        pending.extend(p for p in reversed(target.split("/")) if p not in ("", "."))
    return Path("/" + "/".join(resolved))


def is_process_path(path: PurePath) -> bool:
    """Whether `path` is in a process's directory under `/proc` (`self`, `thread-self`, a pid):
    its links (`root`, `cwd`, `exe`, `fd/N`) are not paths, and its files (`environ`, `mem`)
    are the process's memory."""
    parts = path.parts
    return len(parts) >= 3 and parts[0] == "/" and _in_process_dir(list(parts[1:3]))


def _in_process_dir(parts: list[str]) -> bool:
    return (
        len(parts) >= 2
        and parts[0] == "proc"
        and (parts[1] in _PROCESS_NAMES or parts[1].isdigit())
    )


def _is_dir(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def user_home(name: str) -> Path | None:
    """The home directory of login `name` from the password database, or None when there is
    no such user (bash then leaves `~name` as written)."""
    try:
        directory = pwd.getpwnam(name).pw_dir
    except (KeyError, ValueError):
        return None
    return Path(directory.rstrip("/") or "/")


def expand_tilde(
    text: str, *, home: Path, user_home: Callable[[str], Path | None] = user_home
) -> str | None:
    """`~`, `~/x`, `~name/x` expanded as bash and `os.path.expanduser` do; other text, and
    `~name` of an unknown user, unchanged. None for `~+`, `~-` and `~N` (the shell's directory
    stack: known only to the shell that runs)."""
    if not text.startswith("~"):
        return text
    name, slash, rest = text[1:].partition("/")
    if name == "":
        directory: Path | None = home
    elif name[0] in "+-" or name.isdigit():
        return None
    else:
        directory = user_home(name)
        if directory is None:
            return text
    return directory.as_posix().rstrip("/") + "/" + rest if slash else directory.as_posix()
