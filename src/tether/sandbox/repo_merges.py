"""A file a command's `git merge` of two branches the repository had made: the clean 3-way
merge (`git merge-file`) of what two recorded tips hold at its path over what their merge base
holds is no more the command's than either tip's blob, so it is kept too (`repo_content.py`).

Every blob merged is read back and hashed, each at its path in a commit hashed from the
recorded ids down (`verified_objects.py`); git's word is taken only for which commit is the
merge base, which must be one of those commits. Only a clean merge counts (a conflict a
command resolved is its own content), and only up to `MAX_PAIRS` pairs of tips a file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

from tether.sandbox.verified_objects import git, holding, read_back

_MAX_TIPS = 8
MAX_PAIRS = 28
"""Pairs of tips tried per file at most (those of the first 8 tips, `HEAD` first)."""


class MergeBases:
    """Per repository, the merge bases git names for pairs of verified tips, asked once."""

    def __init__(self) -> None:
        self.bases: dict[tuple[str, str, str], str | None] = {}

    def base(self, git_dir: Path, ours: str, theirs: str) -> str | None:
        key = (os.fspath(git_dir), ours, theirs)
        if key not in self.bases:
            out = git(git_dir, ["merge-base", ours, theirs], b"")
            text = out.decode("ascii", "replace").strip() if out is not None else ""
            self.bases[key] = text or None
        return self.bases[key]


def clean_merge(
    git_dir: Path,
    tips: Sequence[str],
    commits: frozenset[str],
    relative: str,
    data: bytes,
    bases: MergeBases,
    sha256: bool,
) -> bool:
    """Whether `data` is the clean merge of the blobs at `relative` of two of `tips` (each
    a verified commit) over their merge base's (one of `commits`, verified)."""
    trips: list[tuple[str, str, str]] = []
    verified = [t for t in dict.fromkeys(tips) if t in commits][:_MAX_TIPS]
    for ours, theirs in list(combinations(verified, 2))[:MAX_PAIRS]:
        base = bases.base(git_dir, ours, theirs)
        if base is not None and base in commits:
            trips.append((ours, base, theirs))
    if not trips:
        return False
    wanted = sorted({c for trip in trips for c in trip})
    claimed = _claimed_blobs(git_dir, wanted, relative)
    claims = [(c, relative, f"file {b}") for c, b in claimed.items()]
    true = {c for c, _, _ in holding(git_dir, claims, commits, sha256)}
    blobs = {c: b for c, b in claimed.items() if c in true}
    contents = read_back(git_dir, sorted(set(blobs.values())), sha256)
    for ours, base, theirs in trips:
        ids = [blobs.get(ours), blobs.get(base), blobs.get(theirs)]
        if any(i is None or i not in contents for i in ids) or len(set(ids)) < 3:
            continue  # a side unchanged: the merge is a tip's blob, judged already
        texts = [contents[i][1] for i in ids if i is not None]
        if _merge_file(git_dir, texts) == data:
            return True
    return False


def _claimed_blobs(git_dir: Path, commits: list[str], relative: str) -> dict[str, str]:
    """The blob git says each commit holds at `relative` (a claim: `holding` checks it)."""
    if "\n" in relative:
        return {}
    lines = "".join(f"{c}:{relative}\n" for c in commits).encode()
    out = git(git_dir, ["cat-file", "--batch-check=%(objectname) %(objecttype)"], lines)
    if out is None:
        return {}
    found: dict[str, str] = {}
    for commit, line in zip(commits, out.decode("ascii", "replace").splitlines(), strict=False):
        fields = line.split()
        if len(fields) == 2 and fields[1] == "blob":
            found[commit] = fields[0]
    return found


def _merge_file(git_dir: Path, texts: list[bytes]) -> bytes | None:
    """`git merge-file -p ours base theirs`: the clean merge, None on a conflict."""
    with tempfile.TemporaryDirectory() as scratch:
        names: list[str] = []
        for name, text in zip(("ours", "base", "theirs"), texts, strict=True):
            path = Path(scratch) / name
            path.write_bytes(text)
            names.append(os.fspath(path))
        return git(git_dir, ["merge-file", "-p", *names], b"")
