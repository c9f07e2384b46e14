"""The probe's answer kept between processes: that bwrap worked here, and what it can do.

Every start probes (runs bwrap twice: `--help`, then `true` in a sandbox), and on a busy
machine a session's build waits for it. A success is kept in tether's private sandbox
directory (`placeholders.private_dir`: in /dev/shm, so a reboot clears it) with everything the
answer depends on, and the next probe takes it instead of running bwrap when all of that is
unchanged:

- the program: its path, file identity, size, change and modification times, mode and owner
  (an upgrade, a setuid bit given or taken);
- who asks: the user and effective user ids, and the namespaces the process runs in (another
  container, `unshare`, a sandbox of tether's own, are other namespaces);
- the kernel: its boot, and the settings that turn user namespaces off (those the diagnosis
  reads, from the same `proc_sys`);
- how tether probes (`FORM`: raised when the trial's command line changes).

Only a success is kept: a failure is probed again at every start, its diagnosis fresh. A kept
success that has become wrong for a reason none of the above shows fails loudly at the first
command (bwrap's own error, explained), never by running a command outside the sandbox.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

FORM = 1
"""Raised whenever what the probe runs, or what it keeps, changes."""

NAMESPACES = ("user", "mnt", "pid", "net", "ipc", "uts", "cgroup")

BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


def fingerprint(program: Path, proc_sys: Path, sysctl_files: tuple[str, ...]) -> dict[str, Any]:
    """Everything a probe's success depends on (see the module's docstring); raises OSError
    when the program cannot be looked at."""
    info = os.stat(program)
    namespaces: dict[str, int | None] = {}
    for name in NAMESPACES:
        try:
            namespaces[name] = os.stat(f"/proc/self/ns/{name}").st_ino
        except OSError:
            namespaces[name] = None
    return {
        "form": FORM,
        "program": str(program),
        "file": [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns],
        "mode": [info.st_mode, info.st_uid, info.st_gid],
        "ids": [os.getuid(), os.geteuid()],
        "namespaces": namespaces,
        "boot": _read(BOOT_ID),
        "settings": {name: _read(proc_sys / name) for name in sysctl_files},
    }


def remembered(directory: Path, found: dict[str, Any]) -> dict[str, Any] | None:
    """What a success kept under `directory` for exactly this `fingerprint`, or None."""
    try:
        kept = json.loads(_place(directory, found).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(kept, dict) or kept.get("fingerprint") != found:  # pyright: ignore[reportUnknownMemberType]
        return None
    answer = kept.get("answer")  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
    return answer if isinstance(answer, dict) else None  # pyright: ignore[reportUnknownVariableType]


def remember(directory: Path, found: dict[str, Any], answer: dict[str, Any]) -> None:
    """Keep a success (`answer`: what the probe found out) for this `fingerprint`; nothing
    when it cannot be written (the next start probes)."""
    place = _place(directory, found)
    partial = place.with_name(f"{place.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):
        partial.write_text(json.dumps({"fingerprint": found, "answer": answer}), "utf-8")
        os.replace(partial, place)
    with contextlib.suppress(OSError):
        partial.unlink()
    _forget_gone(directory)


def _forget_gone(directory: Path) -> None:
    """Remove what was kept for programs no longer there (a test's, an uninstalled copy)."""
    with contextlib.suppress(OSError):
        for kept in directory.glob("probe-*.json"):
            with contextlib.suppress(OSError, ValueError, AttributeError, TypeError):
                program = json.loads(kept.read_text(encoding="utf-8"))["fingerprint"]["program"]
                if isinstance(program, str) and not os.path.lexists(program):
                    kept.unlink()


def _place(directory: Path, found: dict[str, Any]) -> Path:
    """One file per program path (a fake bwrap's answer never stands in for the real one's)."""
    name = hashlib.sha256(str(found["program"]).encode()).hexdigest()[:16]
    return directory / f"probe-{name}.json"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
