"""Run a program as an unprivileged user inside a user namespace where creating further user
namespaces is disabled (user.max_user_namespaces = 0): the situation bubblewrap meets on a
machine that turns user namespaces off, without touching the machine's own setting.

`python userns_off.py PROGRAM ARGS...`; needs root (to map an unprivileged user). Exits with
the program's status."""

from __future__ import annotations

import ctypes
import os
import sys

CLONE_NEWUSER = 0x10000000
UNPRIVILEGED = 1000


def main(argv: list[str]) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    ready_r, ready_w = os.pipe()
    mapped_r, mapped_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        if libc.unshare(CLONE_NEWUSER) != 0:
            os._exit(120)
        os.write(ready_w, b"x")
        os.read(mapped_r, 1)
        with open("/proc/sys/user/max_user_namespaces", "w") as limit:
            limit.write("0")
        os.setgroups([])
        os.setresgid(UNPRIVILEGED, UNPRIVILEGED, UNPRIVILEGED)
        os.setresuid(UNPRIVILEGED, UNPRIVILEGED, UNPRIVILEGED)
        os.execv(argv[0], argv)
    os.read(ready_r, 1)
    mapping = f"0 0 {UNPRIVILEGED + 1}\n"
    for name in ("uid_map", "gid_map"):
        with open(f"/proc/{pid}/{name}", "w") as f:
            f.write(mapping)
    os.write(mapped_w, b"x")
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
