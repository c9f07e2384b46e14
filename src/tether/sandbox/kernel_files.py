"""The kernel's files in the sandbox's /proc: read-only, and a few not readable at all.

When tether runs as root, the command's uid maps to root outside. It has no capabilities, but
every permission check on a file's owner and mode treats it as root, and the kernel's
writable entries in /proc are root's: `/proc/sys` (sysctls such as `kernel.core_pattern`,
whose helper the kernel runs as real root outside any namespace), `/proc/sysrq-trigger`,
`/proc/irq`, and driver settings under `/proc/fs`, `/proc/scsi`, `/proc/acpi`... bwrap's
`--proc` makes only some of them read-only, and only those it finds writable while it sets
up, which it often does not for `/proc/sys`.

So, as container runtimes do (their "read-only paths" and "masked paths"), every entry at
the top of /proc that is not a process's is bound read-only over the new /proc when it is a
directory, or a file with a write bit: the list comes from the kernel's own /proc, so an
entry a newer kernel adds is covered too. A process's own entries (`/proc/<pid>`, `self`)
stay as they are: they belong to the sandbox's processes only (a pid namespace of its own).
The files runtimes mask because reading them leaks kernel state cannot be read at all. /sys needs
nothing: it is under the read-only `/`, which bwrap binds read-only with every mount below.
"""

from __future__ import annotations

import functools
import os
import stat

MASKED = ("kcore", "keys", "timer_list", "timer_stats", "latency_stats", "sched_debug")
"""Kernel memory, keys, timer and scheduler internals: not for the command to read."""


def kernel_mounts(proc: str = "/proc") -> list[list[str]]:
    """The bwrap options to put after `--proc /proc`: a read-only bind of each kernel entry,
    the masks for the leaky files."""
    read_only, masked = _kernel_entries(proc)
    mounts = [["--ro-bind", f"{proc}/{name}", f"/proc/{name}"] for name in read_only]
    # bwrap binds without device access: opening the mask fails ("Permission denied"), and
    # read-only, it cannot be changed (the device file is the machine's /dev/null).
    mounts += [["--ro-bind", "/dev/null", f"/proc/{name}"] for name in masked]
    return mounts


@functools.cache
def _kernel_entries(proc: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(entries to keep read-only, entries to mask) of this kernel's /proc, read once per
    process: the same kernel serves every sandbox."""
    try:
        names = sorted(os.listdir(proc))
    except OSError:
        return (), ()
    read_only: list[str] = []
    masked: list[str] = []
    for name in names:
        if name.isdigit():
            continue
        try:  # `self`, `net`, `mounts`... are links into a process's own: passed by
            mode = os.lstat(f"{proc}/{name}").st_mode
        except OSError:
            continue
        if name in MASKED and stat.S_ISREG(mode):
            masked.append(name)
        elif stat.S_ISDIR(mode) or (stat.S_ISREG(mode) and mode & 0o222):
            read_only.append(name)
    return tuple(read_only), tuple(masked)
