"""What a decision asks git itself: every path a repository's history holds, the default of
`PermissionContext.git_history` (tests pass fakes or use real repositories).

git prints the content of any file its objects hold (`git show`, `git log -p`, `git cat-file
--batch`), so a file a Read rule denies is only safe from those commands when no commit, stash,
reflog entry or the index ever held it. Asking git costs two short runs of it; the answer is
kept while the repository's refs, reflogs and index stay as they are (their files' sizes and
change times), so a session asks again only after a commit, a fetch, a stash or `git add`.

Bounded: past `TIMEOUT` seconds or `MAX_OUTPUT` bytes, or when git fails, the answer is "not
known" (None) and the engine asks.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from tether.permissions.disk_probes import is_git_directory

TIMEOUT = 10.0
"""Seconds one run of git may take."""
MAX_OUTPUT = 64 * 1024 * 1024
"""Bytes of names one run may print."""
MAX_REF_FILES = 5_000
"""Files under `refs/` and `logs/` looked at for the cache key; past them, no caching."""

# Settings that keep git from running anything the repository's config names while it lists
# names (no content is read, so no filter, textconv or external diff runs either way).
_SAFE = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "safe.bareRepository=explicit",
    "-c",
    "log.showSignature=false",  # would run gpg.program
    "-c",
    "diff.external=",
    "--no-optional-locks",
    "--no-pager",
)

_cache: dict[Path, tuple[tuple[object, ...], tuple[str, ...]]] = {}


def paths_in_history(directory: Path) -> tuple[str, ...] | None:
    """Every path (absolute, as strings) that the repository git finds from `directory`
    (resolved) holds in its index or held in any commit reachable from a ref, a reflog entry
    or a stash, merges compared with each parent. `()` when there is no repository there;
    None when not known."""
    found_top = work_tree_top(directory)
    if found_top is None:
        return ()
    top, git_dir = found_top
    key = _state(git_dir)
    if key is not None:
        found = _cache.get(top)
        if found is not None and found[0] == key:
            return found[1]
    names = _names(top)
    if names is None:
        return None
    paths = tuple(sorted({f"{top.as_posix().rstrip('/')}/{name}" for name in names}))
    if key is not None:
        _cache[top] = (key, paths)
    return paths


def _names(top: Path) -> set[str] | None:
    history = _git(
        top,
        "log",
        "--all",
        "--reflog",
        "-m",
        "--no-renames",
        "--no-textconv",
        "--no-ext-diff",
        "--format=",
        "--name-only",
        "-z",
    )
    index = _git(top, "ls-files", "--cached", "-z")
    if history is None or index is None:
        return None
    return {name for name in (*history.split("\0"), *index.split("\0")) if name}


def _git(top: Path, *args: str) -> str | None:
    return git_in(top, *args)


def git_in(top: Path, *args: str) -> str | None:
    """git's output for ARGS run in `top`, or None when it fails, is too slow or too long,
    or a word holds a marker for what is known only at run time (shell_words)."""
    if any(marker in arg for arg in args for marker in "\x00\x01\x02\x03\x04"):
        return None
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_TERMINAL_PROMPT"] = "0"
    try:
        done = subprocess.run(
            ["git", "-C", str(top), *_SAFE, *args],
            capture_output=True,
            timeout=TIMEOUT,
            env=env,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0 or len(done.stdout) > MAX_OUTPUT:
        # A repository with no commit yet fails `log --all`: then only the index counts.
        if done.returncode != 0 and b"does not have any commits" in done.stderr:
            return ""
        return None
    return done.stdout.decode("utf-8", "surrogateescape")


def work_tree_top(directory: Path) -> tuple[Path, Path] | None:
    """The work tree git finds from `directory` and its git directory: the nearest directory
    whose `.git` is a repository (git's own test), or a `gitdir:` file naming one."""
    for level in (directory, *directory.parents):
        if ".git" in level.parts:
            return None
        git_dir = _git_dir(level / ".git")
        if git_dir is not None and is_git_directory(git_dir):
            return level, git_dir
    return None


def _git_dir(dot: Path) -> Path | None:
    """`.git` itself, or the directory a `gitdir:` file names (a linked work tree)."""
    if dot.is_dir():
        return dot
    try:
        text = dot.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    named = Path(text.removeprefix("gitdir:").strip())
    return named if named.is_absolute() else dot.parent / named


def _state(git_dir: Path) -> tuple[object, ...] | None:
    """What changes when a ref, reflog, stash or the index does: each file's size and change
    time (`HEAD`, `index`, `packed-refs`, `shallow`, `info/grafts`, every file under `refs/`
    and `logs/`), of the common directory too for a linked work tree. None when there are
    too many to look at."""
    dirs = [git_dir]
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
        dirs.append(git_dir / common)
    except OSError:
        pass
    key: list[object] = []
    count = 0
    for base in dirs:
        for name in ("HEAD", "index", "packed-refs", "shallow", "info/grafts"):
            key.append(_stamp(base / name))
        pending = [base / "refs", base / "logs"]
        while pending:
            below = pending.pop()
            try:
                with os.scandir(below) as entries:
                    for entry in entries:
                        count += 1
                        if count > MAX_REF_FILES:
                            return None
                        if entry.is_dir(follow_symlinks=False):
                            pending.append(Path(entry.path))
                        else:
                            key.append((entry.path, _stamp(Path(entry.path))))
            except OSError:
                key.append((str(below), None))
    return tuple(key)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return (info.st_mode, 0, 0)
    return (info.st_size, info.st_mtime_ns, info.st_ino)


def files_git_reads(directory: Path, listing: tuple[str, ...]) -> tuple[str, ...] | None:
    """The files (absolute) `git ls-files` lists from `directory` (resolved) for a
    git_listing answer: ("tracked" | "visible", PATHSPEC...): the tracked files below the
    pathspecs, and with "visible" the untracked ones no ignore rule covers. None when not
    known, and without a repository (`grep.fallbackToNoIndex` then searches every file)."""
    found = work_tree_top(directory)
    if found is None:
        return None
    top = found[0]
    kind, *specs = listing
    extra = ["--others", "--exclude-standard"] if kind == "visible" else []
    out = git_in(directory, "ls-files", "--cached", *extra, "--full-name", "-z", "--", *specs)
    if out is None:
        return None
    base = top.as_posix().rstrip("/")
    return tuple(f"{base}/{name}" for name in out.split("\0") if name)
