"""What a command leaves in a repository's store that changes what the user's own git shows
outside: undone after each command.

The sweep's history check (`verified_objects.py`) runs git with replace refs, grafts, the
commit-graph and the multi-pack index off and hashes what it reads, but the user's git outside
takes them all as they are: a `refs/replace/<id>` (which leaves `git fsck` clean), an
`objects/info/alternates` line naming a store the command filled, an `info/grafts` line, a
`shallow` file that hides or invents a boundary, or a commit-graph claiming other parents or
trees make a later `git checkout` there write content no commit had (a `.claude/settings.json`
hook run at the next start). So, for the session's repositories (as `repo_content` records
them), after each command:

- a replace ref made or moved is set back (deleted when new); the model is told the
  `git replace` that would make it again;
- `objects/info/alternates`, `info/grafts` and `shallow` changed are put back as they were at
  the session's first command (removed when new), what the command left kept beside them as
  `<name>.tether-disabled` (git never reads it);
- a commit-graph (`objects/info/commit-graph`, `objects/info/commit-graphs/`) or multi-pack
  index (`objects/pack/multi-pack-index`) written is removed: caches git rebuilds from the
  objects (`git gc`, `git commit-graph write`); nothing is lost.

- a loose object written (new, or over one there before) whose content does not hash to its
  name is moved aside (`<id>.tether-disabled`: git never reads it); a new pack (any size,
  within `VERIFY_TIMEOUT_S` a sweep) that `git verify-pack` finds an object of not hashing to
  its id in is moved aside whole (its `.idx`, `.pack`, `.rev`...). Only what changed since
  the last sweep is read: the fan-out directories whose time moved, the pack names not seen
  before.

Not covered: a new pack whose check does not end within the sweep's time is not verified (the
model is told, with the `git verify-pack` to run outside); the history check never trusts a
forged object in it, the user's git would. A big pack is never moved aside without a verdict:
after a `git gc` it may hold the only copy of the history. A
forged loose object moved aside leaves its id missing (the command wrote over the real one:
`git fsck` names both).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
import subprocess
import time
import zlib
from collections.abc import Iterable
from pathlib import Path

from tether.sandbox.git_state import free_name, read_at
from tether.sandbox.git_sweep import DISABLED, move_aside
from tether.sandbox.made_refs import read_refs
from tether.sandbox.nofollow import open_directory
from tether.sandbox.verified_objects import GIT_ENVIRONMENT, GIT_OPTIONS, git, is_sha256
from tether.slotted import Slotted

_HEX = re.compile(r"[0-9a-f]{38}([0-9a-f]{24})?")
CLOCK_MARGIN_NS = 50_000_000
"""Files changed this close before a sweep's start are looked at again by the next."""

RESTORED = ("objects/info/alternates", "info/grafts", "shallow")
"""Files put back as they were (what the command left kept beside)."""
CACHES = (
    "objects/info/commit-graph",
    "objects/info/commit-graphs",
    "objects/pack/multi-pack-index",
)
"""Caches of what the objects say, removed when a command wrote them."""
MAX_FILE = 16 * 1024 * 1024
VERIFY_TIMEOUT_S = 60
"""Time for `git verify-pack` of a sweep's new packs, all together: 2.2 s for a 4.5 MiB pack
of 15,000 objects, 1.4 s for a 50 MiB pack of 50 random blobs, on a loaded machine."""
MAX_LOOSE = 20_000
"""New loose objects hashed per sweep at most."""
REPLACE = "refs/replace/"

Stamp = tuple[int, int, int, int]


def _stamp(path: Path) -> Stamp | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _content(path: Path) -> bytes | None:
    """A regular file's bytes, never through a link; None when there is none."""
    directory = open_directory(path.parent)
    if directory is None:
        return None
    try:
        return read_at(directory, path.name, MAX_FILE)
    finally:
        os.close(directory)


class _Before(Slotted):
    __slots__ = ("caches", "fanout", "files", "packs", "replace", "swept_ns")
    replace: dict[str, str]
    files: dict[str, tuple[Stamp | None, bytes | None]]
    caches: dict[str, Stamp | None]
    fanout: dict[str, int]
    """Each `objects/xx` directory's modification time."""
    packs: set[str]
    swept_ns: int

    def __init__(
        self,
        replace: dict[str, str],
        files: dict[str, tuple[Stamp | None, bytes | None]],
        caches: dict[str, Stamp | None],
        fanout: dict[str, int],
        packs: set[str],
        swept_ns: int,
    ) -> None:
        self.replace = replace
        self.files = files
        self.caches = caches
        self.fanout = fanout
        self.packs = packs
        self.swept_ns = swept_ns


class StoreSweep:
    """A session's view of its repositories' stores at its first command."""

    def __init__(self) -> None:
        self.before: dict[str, _Before] = {}
        self.recorded = False

    def record(self, git_dirs: Iterable[Path]) -> None:
        if self.recorded:
            return
        self.recorded = True
        for git_dir in git_dirs:
            self.before[os.fspath(git_dir)] = _Before(
                _replace_refs(git_dir),
                {n: (_stamp(git_dir / n), _content(git_dir / n)) for n in RESTORED},
                {n: _stamp(git_dir / n) for n in CACHES},
                _fanout(git_dir),
                _packs(git_dir),
                time.time_ns() - CLOCK_MARGIN_NS,
            )

    def sweep(self) -> list[str]:
        told: list[str] = []
        for key, before in self.before.items():
            git_dir = Path(key)
            with contextlib.suppress(OSError):
                told += _replace_undone(git_dir, before.replace)
                for name, (stamp, content) in before.files.items():
                    if _stamp(git_dir / name) != stamp:
                        told += _put_back(git_dir / name, content)
                        before.files[name] = (_stamp(git_dir / name), content)
                for name, stamp in before.caches.items():
                    if (now := _stamp(git_dir / name)) is not None and now != stamp:
                        told += _removed(git_dir / name)
                    before.caches[name] = _stamp(git_dir / name)
                told += _forged_objects(git_dir, before)
        return told


def _fanout(git_dir: Path) -> dict[str, int]:
    found: dict[str, int] = {}
    if os.path.islink(git_dir / "objects"):
        return found  # not a store git made: nothing of it is looked at
    with contextlib.suppress(OSError), os.scandir(git_dir / "objects") as entries:
        for entry in entries:
            if len(entry.name) == 2 and entry.is_dir(follow_symlinks=False):
                found[entry.name] = entry.stat(follow_symlinks=False).st_mtime_ns
    return found


def _packs(git_dir: Path) -> set[str]:
    if os.path.islink(git_dir / "objects") or os.path.islink(git_dir / "objects" / "pack"):
        return set()
    with contextlib.suppress(OSError):
        names = os.listdir(git_dir / "objects" / "pack")
        return {n for n in names if n.startswith("pack-") and n.endswith(".idx")}
    return set()


def _forged_objects(git_dir: Path, before: _Before) -> list[str]:
    """Move aside the loose objects and packs written since the last sweep that do not hash."""
    now_ns = time.time_ns() - CLOCK_MARGIN_NS
    fanout, packs = _fanout(git_dir), _packs(git_dir)
    sha256 = is_sha256(git_dir)
    moved: list[str] = []
    checked = 0
    for name, mtime in fanout.items():
        if before.fanout.get(name) == mtime:
            continue
        with contextlib.suppress(OSError), os.scandir(git_dir / "objects" / name) as entries:
            for entry in entries:
                info = entry.stat(follow_symlinks=False)
                if info.st_ctime_ns < before.swept_ns or not stat.S_ISREG(info.st_mode):
                    continue
                if checked >= MAX_LOOSE or not _HEX.fullmatch(entry.name):
                    continue  # git's own temporary files (`tmp_obj_*`) while it writes
                checked += 1
                forged = not _hashes(Path(entry.path), name + entry.name, sha256)
                if forged and (target := move_aside(Path(entry.path))) is not None:
                    moved.append(os.fspath(target))
    unverified: list[str] = []
    deadline = time.monotonic() + VERIFY_TIMEOUT_S
    for idx in sorted(packs - before.packs):
        pack = git_dir / "objects" / "pack" / idx
        verdict = _verify_pack(git_dir, pack, deadline - time.monotonic())
        if verdict is None:
            unverified.append(os.fspath(pack))
        elif not verdict:
            for part in (git_dir / "objects" / "pack").glob(pack.stem + ".*"):
                if DISABLED not in part.name and (target := move_aside(part)) is not None:
                    moved.append(os.fspath(target))
    before.fanout, before.packs, before.swept_ns = fanout, _packs(git_dir), now_ns
    told: list[str] = []
    if moved:
        told.append(
            f"moved aside objects a command wrote in {git_dir} whose content is not their "
            f"id's (git outside would show it for that id): {', '.join(moved)}"
        )
    if unverified:
        told.append(
            f"packs a command wrote in {git_dir} were not verified in time; before using the "
            f"repository outside, check them: git verify-pack {' '.join(unverified)}"
        )
    return told


def _verify_pack(git_dir: Path, idx: Path, timeout: float) -> bool | None:
    """Whether `git verify-pack` finds every object of the pack hashing to its id; None when
    it could not tell (no git, not within `timeout` seconds: the pack is left)."""
    program = shutil.which("git")
    if program is None or timeout <= 0:
        return None
    try:
        done = subprocess.run(
            [program, f"--git-dir={git_dir}", *GIT_OPTIONS, "verify-pack", os.fspath(idx)],
            capture_output=True,
            timeout=timeout,
            check=False,
            env={"PATH": os.environ.get("PATH", ""), **GIT_ENVIRONMENT},
            cwd="/",
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.returncode == 0


def _hashes(path: Path, object_id: str, sha256: bool) -> bool:
    """Whether the loose object file's content hashes to `object_id` (unreadable: True, as
    git cannot read it either)."""
    digest = hashlib.sha256() if sha256 else hashlib.sha1()
    inflate = zlib.decompressobj()
    try:
        with open(path, "rb", opener=_nofollow) as f:
            while chunk := f.read(1 << 20):
                digest.update(inflate.decompress(chunk))
            digest.update(inflate.flush())
    except (OSError, zlib.error):
        return True
    return digest.hexdigest() == object_id


def _nofollow(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK)


def _replace_refs(git_dir: Path) -> dict[str, str]:
    return {n: i for n, i in read_refs(git_dir).items() if n.startswith(REPLACE)}


def _replace_undone(git_dir: Path, before: dict[str, str]) -> list[str]:
    now = _replace_refs(git_dir)
    told: list[str] = []
    for name, object_id in now.items():
        if before.get(name) == object_id:
            continue
        old = before.get(name)
        args = ["update-ref", name, old] if old else ["update-ref", "-d", name]
        if git(git_dir, ["-c", "core.hooksPath=/dev/null", *args], b"") is not None:
            replaced = name.removeprefix(REPLACE)
            told.append(
                f"undid a replace ref a command made in {git_dir} (git outside would show "
                f"{object_id} for {replaced}; to make it again: git replace {replaced} "
                f"{object_id})"
            )
    return told


def _put_back(path: Path, content: bytes | None) -> list[str]:
    """`path` as it was (`content`; None: absent), what is there now kept beside."""
    directory = open_directory(path.parent)
    if directory is None:
        return []
    try:
        aside = None
        owner: tuple[int, int] | None = None
        with contextlib.suppress(FileNotFoundError):
            info = os.stat(path.name, dir_fd=directory, follow_symlinks=False)
            owner = (info.st_uid, info.st_gid)
            aside = free_name(directory, path.name + DISABLED)
            os.rename(path.name, aside, src_dir_fd=directory, dst_dir_fd=directory)
        if content is not None:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
            fd = os.open(path.name, flags, 0o644, dir_fd=directory)
            try:
                os.write(fd, content)
                if owner is not None and os.geteuid() == 0:
                    os.fchown(fd, *owner)
            finally:
                os.close(fd)
    finally:
        os.close(directory)
    kept = f"; as the command left it: {path.parent / aside}" if aside else ""
    state = "put back as it was" if content is not None else "removed (new)"
    return [f"{path} {state}: it changes what the user's git shows of the history{kept}"]


def _removed(path: Path) -> list[str]:
    directory = open_directory(path.parent)
    if directory is None:
        return []
    try:
        info = os.stat(path.name, dir_fd=directory, follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            shutil.rmtree(path.name, dir_fd=directory)
        else:
            os.unlink(path.name, dir_fd=directory)
    except FileNotFoundError:
        return []
    finally:
        os.close(directory)
    return [
        f"removed {path}, a cache git rebuilds, that a command wrote (it could show other history)"
    ]
