"""The refs sandboxed commands made, remembered past their session: no later session takes
them for the repository's own history.

`repo_content.py` keeps a start-up file a command checks out when the history of a ref the
repository had at the session's first command holds it. A command can make such a ref with
git's plumbing alone (`hash-object`, `commit-tree`, `update-ref`: nothing in the work tree for
the sweep to judge); if the next session took it for history, its first command could check
the file out of it and the sweep would keep it (a `.claude/settings.json` hook, run as the
user at the next start). So after each command the ids the recorded repositories' refs
moved to are kept under tether's home (outside every sandbox), per repository (its common
git directory); a later session's record leaves out every ref still at such an id, and takes
instead the tips that session trusted (`base`): the history the commands built on stays the
repository's. A ref the user moves outside (a commit on top of the command's, a merge) is a
new id: the user's choice, trusted.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

from tether.file_locks import flock
from tether.sandbox.nofollow import read_regular_file

_HEX = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
MAX_REFS = 100_000
"""Refs read per repository at most (the rest are not the repository's for the sweep)."""

MADE_REFS = "sandbox-made-refs"
"""The directory under tether's home where they are kept."""
MAX_KEPT = 20_000
"""Ids kept per repository at most, the newest (what is older was long since built on)."""


def _place(directory: Path, common: Path) -> Path:
    name = hashlib.sha256(os.fsencode(os.path.realpath(common))).hexdigest()[:24]
    return directory / f"{name}.json"


def _read(place: Path) -> tuple[list[str], list[str]]:
    try:
        kept = json.loads(place.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return [], []
    if not isinstance(kept, dict):
        return [], []
    made = kept.get("made")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    base = kept.get("base")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return _ids(made), _ids(base)  # pyright: ignore[reportUnknownArgumentType]


def _ids(value: object) -> list[str]:
    if not isinstance(value, list):
        return []
    return [i for i in value if isinstance(i, str)]  # pyright: ignore[reportUnknownVariableType]


def made_by_commands(directory: Path | None, common: Path) -> tuple[frozenset[str], list[str]]:
    """The ids commands moved the repository's refs to, and the tips the sessions that did so
    trusted (commits: their history is the repository's)."""
    if directory is None:
        return frozenset(), []
    made, base = _read(_place(directory, common))
    return frozenset(made), base


def remember(
    directory: Path | None, common: Path, made: Iterable[str], base: Iterable[str]
) -> None:
    """Add `made` (ids refs were moved to by commands) and `base` (the session's trusted tips)
    to what is kept for the repository; nothing when it cannot be written."""
    if directory is None:
        return
    with contextlib.suppress(OSError):
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        place = _place(directory, common)
        with open(place.with_suffix(".lock"), "a") as lock:
            flock(lock.fileno(), fcntl.LOCK_EX, what=f"the changes to {place}")
            old_made, old_base = _read(place)
            new_made = list(dict.fromkeys([*old_made, *made]))[-MAX_KEPT:]
            new_base = list(dict.fromkeys([*old_base, *base]))[-MAX_KEPT:]
            partial = place.with_name(f"{place.name}.{os.getpid()}.tmp")
            partial.write_text(json.dumps({"made": new_made, "base": new_base}), "utf-8")
            os.replace(partial, place)


def read_refs(common: Path) -> dict[str, str]:
    refs: dict[str, str] = {}
    packed = read_regular_file(common / "packed-refs", 256 * 1024 * 1024)
    if packed is not None:
        for line in packed.decode("utf-8", "replace").splitlines():
            object_id, _, name = line.partition(" ")
            if _HEX.fullmatch(object_id) and name:
                refs[name] = object_id
    top = common / "refs"
    for directory, _dirs, files in os.walk(top):
        for name in files:
            if len(refs) >= MAX_REFS:
                return refs
            path = Path(directory) / name
            text = read_regular_file(path, 200)
            if text is not None and _HEX.fullmatch(
                value := text.decode("ascii", "replace").strip()
            ):
                refs[str(path.relative_to(common))] = value
    return refs


def resolve(git_dir: Path, name: str, refs: dict[str, str]) -> str | None:
    text = read_regular_file(git_dir / name, 1000)
    if text is None:
        return refs.get(name)
    value = text.decode("utf-8", "replace").strip()
    if value.startswith("ref: "):
        target = value[5:].strip()
        return refs.get(target)
    return value if _HEX.fullmatch(value) else None
