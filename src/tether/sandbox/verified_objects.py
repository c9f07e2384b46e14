"""What a repository's history held, with nothing taken on the object store's word.

A sandboxed command can write the object store (`.git/objects` stays writable: commits must
work): it can write another object's content over a loose object file, add a pack or an
alternate store (`objects/info/alternates`) that claims an existing id (git looks in packs,
its alternates' too, before loose objects, and the newest pack first), make up the missing
parent of a shallow clone and empty `shallow`, or do so in an earlier session. git reads
commits and trees without hashing them, so `git log` then shows, for the commits the
repository had, content that never was theirs. So the sweep (`repo_content.py`) takes git's
answer as a candidate only: the commit it names must be reachable from the ids recorded
before the session through commits each read back and hashed (`reachable`), and the path
must hold the blob in that commit's tree, each tree on the way read back and hashed
(`holding`). A forged object fails its hash and counts as absent: content resting on it is
not the repository's (moved aside), whatever else the store was made to say.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from tether.sandbox.nofollow import read_regular_file

GIT_OPTIONS = (
    "-c",
    "safe.directory=*",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "log.showSignature=false",
    "-c",
    "diff.external=",
    "-c",
    "core.quotePath=false",
    "-c",
    "core.commitGraph=false",
    "-c",
    "core.multiPackIndex=false",
    "-c",
    "fetch.writeCommitGraph=false",
    "--no-replace-objects",
    "--no-pager",
)
"""git reads objects only with these: nothing a repository's config names runs (no pager, no
signature check, no external diff), so any owner's repository is read; no replace refs, no
grafts (`GIT_GRAFT_FILE` the null device), no commit-graph or multi-pack index (caches a
command can write). What git then says is still checked (this module)."""
GIT_ENVIRONMENT = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_GRAFT_FILE": os.devnull,
    "GIT_NO_LAZY_FETCH": "1",
}
"""With `PATH` only: no `GIT_ALTERNATE_OBJECT_DIRECTORIES` or other variable of tether's
caller; a partial clone's missing objects are not fetched."""
TIMEOUT_S = 20
MAX_OBJECT = 64 * 1024 * 1024
"""Objects larger than this are not read back (a commit or tree never is: taken as absent)."""
MAX_ROUNDS = 64
"""Reads of parents git's own walk did not list (a forged store hides them): at most this
many rounds; what lies beyond is not reached (fail closed: not the repository's)."""
MAX_COMMITS_TRIED = 8
"""Commits git names for one (path, blob) that are checked, at most."""
MAX_TIPS_TRIED = 64
"""Tips (`HEAD` first) whose own trees are looked at before the history is walked: a
repository with thousands of tags has its history walked instead, once."""

_SHA256 = re.compile(rb"(?im)^\s*objectformat\s*=\s*sha256\s*$")


def git(git_dir: Path, args: Sequence[str], stdin: bytes) -> bytes | None:
    """git's output, or None when it failed, was not there or took too long."""
    program = shutil.which("git")
    if program is None:
        return None
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        done = subprocess.run(
            [program, f"--git-dir={git_dir}", *GIT_OPTIONS, *args],
            input=stdin,
            capture_output=True,
            timeout=TIMEOUT_S,
            check=False,
            env={"PATH": os.environ.get("PATH", ""), **GIT_ENVIRONMENT},
            cwd="/",
        )
        if done.returncode == 0:
            return done.stdout
    return None


def is_sha256(git_dir: Path) -> bool:
    """Whether the repository's ids are SHA-256 (`extensions.objectFormat`), else SHA-1."""
    config = read_regular_file(git_dir / "config", 1_000_000) or b""
    return _SHA256.search(config) is not None


def read_back(git_dir: Path, ids: Sequence[str], sha256: bool) -> dict[str, tuple[str, bytes]]:
    """The objects of `ids` whose content hashes to their id, as (type, content); a missing,
    too large or forged one is left out."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return {}
    out = git(git_dir, ["cat-file", "--batch"], "".join(f"{i}\n" for i in wanted).encode())
    if out is None:
        return {}
    found: dict[str, tuple[str, bytes]] = {}
    at = 0
    while at < len(out):
        end = out.find(b"\n", at)
        if end < 0:
            break
        fields = out[at:end].split()
        at = end + 1
        if len(fields) != 3 or not fields[2].isdigit():
            continue  # "<id> missing", "<id> ambiguous"
        object_id, kind, size = fields[0].decode("ascii", "replace"), fields[1], int(fields[2])
        body = out[at : at + size]
        at += size + 1
        if size > MAX_OBJECT or len(body) != size:
            continue
        digest = hashlib.sha256() if sha256 else hashlib.sha1()
        digest.update(kind + b" %d\0" % size)
        digest.update(body)
        if digest.hexdigest() == object_id:
            found[object_id] = (kind.decode("ascii", "replace"), body)
    return found


def _header(body: bytes, key: bytes) -> list[str]:
    """The values of a commit's or tag's header lines named `key` (up to the blank line)."""
    values: list[str] = []
    for line in body.split(b"\n"):
        if not line:
            break
        name, _, value = line.partition(b" ")
        if name == key:
            values.append(value.decode("ascii", "replace"))
    return values


def reachable(
    git_dir: Path, tips: Sequence[str], sha256: bool, *, ancestors: bool = True
) -> frozenset[str]:
    """The commits reachable from `tips` (tags peeled) through commits that hash to their
    ids: git's own walk says which to read, all at once; a parent it did not list is read
    after. Without `ancestors`: the tips' own commits only (a checkout of a branch, a merge
    or a stash pop brings what a tip holds: no walk of the history needed)."""
    ids: list[str] = []
    if ancestors:
        listed = git(git_dir, ["rev-list", "--stdin"], "".join(f"{t}\n" for t in tips).encode())
        ids = listed.decode("ascii", "replace").split() if listed is not None else []
    objects = read_back(git_dir, [*tips, *ids], sha256)
    commits: set[str] = set()
    pending = list(tips)
    for _ in range(MAX_ROUNDS):
        missing: list[str] = []
        while pending:
            object_id = pending.pop()
            if object_id in commits:
                continue
            if object_id not in objects:
                missing.append(object_id)
                continue
            kind, body = objects[object_id]
            if kind == "tag":
                pending += _header(body, b"object")[:1]
            elif kind == "commit":
                commits.add(object_id)
                pending += _header(body, b"parent") if ancestors else []
        missing = [m for m in dict.fromkeys(missing) if m not in objects]
        if not missing:
            break
        objects.update(read_back(git_dir, missing, sha256))
        pending = [m for m in missing if m in objects]
    return frozenset(commits)


_KINDS = {b"120000": "link", b"100644": "file", b"100755": "file", b"100664": "file"}


def _entries(body: bytes, width: int) -> dict[bytes, tuple[bytes, str]]:
    """A tree's entries: name -> (mode, id)."""
    found: dict[bytes, tuple[bytes, str]] = {}
    at = 0
    while at < len(body):
        space = body.find(b" ", at)
        nul = body.find(b"\0", space + 1)
        if space < 0 or nul < 0 or nul + 1 + width > len(body):
            break
        found[body[space + 1 : nul]] = (body[at:space], body[nul + 1 : nul + 1 + width].hex())
        at = nul + 1 + width
    return found


Claim = tuple[str, str, str]
"""(commit, path relative to the work tree, "<kind> <blob id>") as git's log named them."""


def holding(
    git_dir: Path, claims: Sequence[Claim], commits: frozenset[str], sha256: bool
) -> set[Claim]:
    """The claims that are true: the commit is one of `commits` (verified) and its tree,
    read back and hashed tree by tree down the path, holds there that blob, of that kind."""
    width = 32 if sha256 else 20
    # One read for all: each commit and, as git resolves them, the trees down each path
    # (`<commit>:<dir>`); what git resolved is trusted only as far as the hashes link up.
    wanted: list[str] = []
    for commit, relative, _blob in claims:
        if commit in commits and "\n" not in relative:
            parts = relative.split("/")
            wanted += [commit, f"{commit}^{{tree}}"]
            wanted += [f"{commit}:{'/'.join(parts[:i])}" for i in range(1, len(parts))]
    objects = read_back(git_dir, wanted, sha256)
    objects.update(
        read_back(git_dir, [c for c, _, _ in claims if c in commits and c not in objects], sha256)
    )
    # Each claim walks down one tree a round: (claim, tree id, components left).
    walking: list[tuple[Claim, str, list[bytes]]] = []
    for claim in claims:
        commit = objects.get(claim[0])
        trees = _header(commit[1], b"tree") if commit and commit[0] == "commit" else []
        if trees:
            walking.append((claim, trees[0], os.fsencode(claim[1]).split(b"/")))
    true: set[Claim] = set()
    while walking:
        unread = [tree for _, tree, _ in walking if tree not in objects]
        objects.update(read_back(git_dir, unread, sha256))
        going: list[tuple[Claim, str, list[bytes]]] = []
        for claim, tree, left in walking:
            found = objects.get(tree)
            if found is None or found[0] != "tree":
                continue
            entry = _entries(found[1], width).get(left[0])
            if entry is None:
                continue
            mode, object_id = entry
            if len(left) > 1:
                if mode == b"40000":
                    going.append((claim, object_id, left[1:]))
            elif f"{_KINDS.get(mode)} {object_id}" == claim[2]:
                true.add(claim)
        walking = going
    return true
