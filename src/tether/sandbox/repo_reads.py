"""What `repo_content.py` reads of a git repository: its refs and tips (from the files), the
blobs git's log says a path held, where the tips differ from `HEAD`, the work tree of a file,
a file's blob id, the remotes a config names. git runs with nothing of the repository's config
that runs programs in effect (`verified_objects.git`)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from tether.sandbox.made_refs import read_refs, resolve
from tether.sandbox.protected import common_dirs, gitdir_pointer
from tether.sandbox.verified_objects import git, is_sha256
from tether.slotted import Slotted

MAX_FILE = 16 * 1024 * 1024
"""Files larger than this are not hashed (moved aside as before)."""


class Repo(Slotted):
    __slots__ = ("git_dir", "head", "refs", "tips")
    git_dir: Path
    """Where its objects and refs are (the common directory of a linked worktree)."""
    tips: tuple[str, ...]
    head: str | None
    refs: dict[str, str]
    """Its refs (and `HEAD`) by name, as the last command left them."""

    def __init__(
        self,
        git_dir: Path,
        tips: tuple[str, ...],
        head: str | None,
        refs: dict[str, str] | None = None,
    ) -> None:
        self.git_dir = git_dir
        self.tips = tips
        self.head = head
        self.refs = {} if refs is None else refs


def within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def remote_urls(config: str) -> list[str]:
    urls: list[str] = []
    section = None
    for line in config.splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped.strip("[]").replace('"', "").strip().lower()
            continue
        key, sep, value = stripped.partition("=")
        if sep and section and section.startswith("remote ") and key.strip().lower() == "url":
            urls.append(value.strip().strip('"'))
    return urls


def work_tree_of(path: str) -> tuple[str, str] | None:
    """The work tree holding `path` (the nearest directory above with a `.git` file, or one
    with a `HEAD`: not a placeholder), and the path relative to it."""
    directory = os.path.dirname(path)
    while True:
        dot_git = os.path.join(directory, ".git")
        if os.path.isfile(dot_git) or os.path.lexists(os.path.join(dot_git, "HEAD")):
            return directory, os.path.relpath(path, directory)
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def open_repo(tree: Path) -> Repo | None:
    dot_git = tree / ".git"
    if dot_git.is_dir() and not dot_git.is_symlink():
        return open_git_dir(dot_git)
    pointed = gitdir_pointer(dot_git)
    return None if pointed is None else open_git_dir(pointed)


def open_git_dir(git_dir: Path) -> Repo | None:
    if not (git_dir / "HEAD").is_file():
        return None
    common = next(iter(common_dirs(git_dir)), git_dir)
    refs = read_refs(common)
    head = resolve(git_dir, "HEAD", refs)
    listed = [head] if head else []
    tips = tuple(dict.fromkeys([*listed, *refs.values()]))
    return Repo(common, tips, head, refs_of(common))


def refs_of(common: Path) -> dict[str, str]:
    """The repository's refs and its work trees' `HEAD`s (a detached one is a ref too)."""
    refs = read_refs(common)
    heads = [common, *(p for p in (common / "worktrees").glob("*") if p.is_dir())]
    for git_dir in heads:
        if (head := resolve(git_dir, "HEAD", refs)) is not None:
            refs[f"HEAD {git_dir.name}"] = head
    return refs


def blob_id(path: str, git_dir: Path) -> str | None:
    """git's id of the file's content as a blob (a link's: its target), no filter applied,
    prefixed by its kind (`kind_of`): a link is only ever a link of the history, a file a file."""
    try:
        info = os.lstat(path)
        if os.path.islink(path):
            kind = "link"
            data = os.fsencode(os.readlink(path))
        elif os.path.isfile(path) and info.st_size <= MAX_FILE:
            kind = "file"
            with open(path, "rb") as f:
                data = f.read(MAX_FILE + 1)
        else:
            return None
    except OSError:
        return None
    digest = hashlib.sha256() if is_sha256(git_dir) else hashlib.sha1()
    digest.update(b"blob %d\0" % len(data))
    digest.update(data)
    return f"{kind} {digest.hexdigest()}"


def kind_of(mode: str) -> str | None:
    """What a tree entry's mode holds: a link (120000), a file (100644, 100755), else None."""
    if mode == "120000":
        return "link"
    return "file" if mode in ("100644", "100755", "100664") else None


def git_text(git_dir: Path, args: list[str], stdin: str) -> str | None:
    out = git(git_dir, args, stdin.encode())
    return None if out is None else out.decode("utf-8", "surrogateescape")


def tip_commits(repo: Repo) -> list[str]:
    """The tips that are commits (a tag peeled; a ref to a tree or blob left out)."""
    out = git_text(
        repo.git_dir,
        ["cat-file", "--batch-check=%(objectname) %(objecttype)"],
        "".join(f"{tip}^{{commit}}\n" for tip in repo.tips),
    )
    if out is None:
        return []
    found = [line.split()[0] for line in out.splitlines() if line.endswith(" commit")]
    return list(dict.fromkeys(found))


def blobs_at(repo: Repo, relatives: list[str]) -> dict[str, dict[str, list[str]]]:
    """Every blob id each of `relatives` held in the history of the repository's tips, as
    git reads it, with the commits that brought it (to be confirmed: `_confirmed`)."""
    commits = tip_commits(repo)
    if not commits:
        return {}
    args = ["log", "--stdin", "--raw", "--no-abbrev", "--no-renames", "-m", "--format=@%H"]
    lines = [*commits, "--", *(f":(literal){r}" for r in relatives)]
    out = git_text(repo.git_dir, args, "\n".join(lines) + "\n")
    if out is None:
        return {}
    found: dict[str, dict[str, list[str]]] = {}
    commit = ""
    for line in out.splitlines():
        if line.startswith("@"):
            commit = line[1:]
            continue
        head, _, path = line.partition("\t")
        fields = head.split()
        if line.startswith(":") and len(fields) >= 5 and (kind := kind_of(fields[1])):
            seen = found.setdefault(path, {}).setdefault(f"{kind} {fields[3]}", [])
            if commit not in seen:
                seen.append(commit)
    return found


def differing(repo: Repo, relatives: list[str]) -> frozenset[str]:
    """The paths below `relatives` where a recorded tip's tree differs from `HEAD`'s."""
    if repo.head is None:
        return frozenset()
    tips = [tip for tip in tip_commits(repo) if tip != repo.head]
    if not tips:
        return frozenset()
    lines = "".join(f"{tip} {repo.head}\n" for tip in tips)
    args = ["diff-tree", "--stdin", "-r", "--name-only", "--no-renames", "--no-commit-id"]
    out = git_text(repo.git_dir, [*args, "--", *(f":(literal){r}" for r in relatives)], lines)
    return frozenset(out.splitlines()) if out is not None else frozenset()
