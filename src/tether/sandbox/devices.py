"""The device files of the sandbox's /dev: tether's own, not the machine's, when it runs as root.

bwrap's `--dev` makes a fresh tmpfs (its `pts` a new devpts instance, `shm` a tmpfs of its
own) but binds the machine's own `null`, `zero`, `full`, `random`, `urandom` and `tty` into
it: the very inodes of the host's /dev. As root the command's uid is their owner outside, so
`chmod 600 /dev/null` inside changed the host's (every other user's programs then fail), and
so would an ACL or a timestamp. A device file cannot be bound read-only with device access
kept (bwrap's read-only binds forbid opening devices), and a user namespace cannot `mknod`.

So tether, as root outside, makes nodes of its own with the same device numbers, owned by
`OWNER` (no uid the command maps to) and mode 0666, in a directory of its own on a file
system that allows devices, and binds them over bwrap's. Inside they work as the host's do;
changing their mode, owner, ACL or times is refused (the command is not their owner and has
no capability), and even then it would change tether's node, not the machine's. Where nodes
cannot be made (not root, a container without `mknod`, only `nodev` places), bwrap's stay.
"""

from __future__ import annotations

import contextlib
import functools
import os
import stat
import tempfile
from pathlib import Path

from tether.sandbox.placeholders import private_dir

NODES: dict[str, tuple[int, int]] = {
    "null": (1, 3),
    "zero": (1, 5),
    "full": (1, 7),
    "random": (1, 8),
    "urandom": (1, 9),
    "tty": (5, 0),
}
"""The nodes bwrap's `--dev` binds from the machine, with their device numbers."""

OWNER = 65534
"""The nodes' owner and group outside (the overflow id, `nobody`): not root, so the command
(root's uid outside, with no capability) is not their owner."""

MODE = 0o666


def device_mounts(place: Path | None) -> list[str]:
    """The bwrap options that bind tether's nodes in `place` over those of `--dev /dev`."""
    if place is None:
        return []
    return [arg for name in NODES for arg in ("--dev-bind", str(place / name), f"/dev/{name}")]


def private_devices() -> Path | None:
    """The directory holding tether's own nodes, made (or repaired) now; None where they
    cannot be made. Checked at every command: a node removed or changed is made again."""
    if os.geteuid() != 0:
        return None
    place = _place()
    if place is None:
        return None
    try:
        for name, numbers in NODES.items():
            _ensure(place / name, numbers)
    except OSError:
        return None
    return place


@functools.cache
def _place() -> Path | None:
    """A root-owned directory that no one else can write, on a file system without `nodev`
    (a bind keeps its source's `nodev`, and /dev/shm often has it), where `mknod` works."""
    for parent in (private_dir(), Path(tempfile.gettempdir()), Path("/var/tmp")):
        place = parent / ("devices" if parent == private_dir() else "tether-sandbox-devices")
        with contextlib.suppress(OSError):
            if _own_directory(place) and not os.statvfs(place).f_flag & os.ST_NODEV:
                _ensure(place / "null", NODES["null"])
                return place
    return None


def _own_directory(place: Path) -> bool:
    """`place` made if missing; whether it is a real directory of root's that only root can
    write (what is in it is bound into every sandbox)."""
    with contextlib.suppress(FileExistsError):
        place.mkdir(mode=0o755)
    info = place.lstat()
    return stat.S_ISDIR(info.st_mode) and info.st_uid == 0 and not info.st_mode & 0o022


def _ensure(path: Path, numbers: tuple[int, int]) -> None:
    """The node at `path` as wanted: a character device with `numbers`, `OWNER`'s, 0666."""
    device = os.makedev(*numbers)
    try:
        info = path.lstat()
    except FileNotFoundError:
        info = None
    if info is not None:
        wanted = (stat.S_IFCHR | MODE, device, OWNER, OWNER)
        if (info.st_mode, info.st_rdev, info.st_uid, info.st_gid) == wanted:
            return
        path.unlink()
    os.mknod(path, stat.S_IFCHR | 0o600, device)
    os.chown(path, OWNER, OWNER)
    os.chmod(path, MODE)
