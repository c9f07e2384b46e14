"""As root the command's uid is root's outside: what it must still not change. The kernel's
settings in /proc/sys and /sys, and no setuid or setgid file left behind.

Every probe is harmless if the protection failed: a sysctl is opened for writing and closed
without a byte written, and the one written (kernel.hostname) belongs to the sandbox's own
UTS namespace and gets the value it already has."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tether.tools.registry import ToolOutcome

from .conftest import Layout, bash_runner, needs_bwrap, sandboxed_context

pytestmark = needs_bwrap

OPEN_FOR_WRITING = (
    "python3 -c 'import os,sys\n"
    "for p in sys.argv[1:]:\n"
    '    try: os.close(os.open(p, os.O_WRONLY)); print(p, "OPENED")\n'
    "    except OSError as e: print(p, os.strerror(e.errno))' "
)
SYSCTLS = ["/proc/sys/kernel/core_pattern", "/proc/sys/vm/drop_caches", "/proc/sysrq-trigger"]
SYS_FILES = ["/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/uevent_helper"]


async def test_kernel_settings_cannot_be_opened_for_writing(boundary: Layout) -> None:
    present = [p for p in SYSCTLS + SYS_FILES if os.path.exists(p)]
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(
        command='cat /proc/sys/kernel/hostname > "$TMPDIR/h"; '
        'cat "$TMPDIR/h" > /proc/sys/kernel/hostname; ' + OPEN_FOR_WRITING + " ".join(present)
    )
    refused = ("Read-only file system", "Permission denied")
    lines = outcome.content.splitlines()
    # The first line: bash's error writing the hostname; then one per kernel file.
    assert [any(r in line for r in refused) for line in lines[-len(present) - 1 :]] == [True] * (
        len(present) + 1
    ), outcome.content


async def test_the_kernels_proc_entries_are_read_only_and_a_process_own_are_not(
    boundary: Layout,
) -> None:
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(
        command="awk '$5 ~ \"^/proc/(sys|irq|bus|fs|acpi|sysrq-trigger)$\" {print $5, $6}' "
        "/proc/self/mountinfo | sort -u | cut -d, -f1; echo 900 > /proc/self/oom_score_adj "
        "&& echo own-ok"
    )
    expected = [f"/proc/{n} ro" for n in ("acpi", "bus", "fs", "irq", "sys", "sysrq-trigger")]
    shown = [line for line in outcome.content.splitlines() if line.startswith("/proc/")]
    assert (
        sorted(set(shown)),
        outcome.content.endswith("own-ok"),
    ) == ([e for e in expected if os.path.exists(e.split()[0])], True)


async def test_no_setuid_or_setgid_file_can_be_made(boundary: Layout) -> None:
    """In the workspace and TMPDIR, by every kind of call: each is refused, the files stay
    without the bits, and plain modes still work."""
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(
        command="cp /bin/true t && chmod 4755 t; chmod g+s t; install -m 2755 /bin/true i; "
        'mkdir -m 2775 d; cp /bin/true "$TMPDIR/u" && chmod u+s "$TMPDIR/u"; '
        "python3 -c 'import os; os.open(\"o\", os.O_CREAT | os.O_WRONLY, 0o4755)'; "
        "chmod 700 t && mkdir -m 755 e && echo plain-ok"
    )
    made = [boundary.workspace / n for n in ("t", "i", "e")] + [boundary.scratch / "tmp" / "u"]
    bits = {p.name: stat.S_IMODE(p.stat().st_mode) & 0o6000 for p in made if p.exists()}
    assert (
        outcome.content.count("Operation not permitted"),
        outcome.content.rstrip().endswith("plain-ok"),
        bits,
        Path(boundary.workspace / "d").exists(),
    ) == (6, True, {"t": 0, "i": 0, "e": 0, "u": 0}, False), outcome.content


async def test_a_setid_refusal_is_explained(boundary: Layout) -> None:
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(command="touch f && chmod u+s f")
    assert outcome == ToolOutcome(
        "Exit code 1\nchmod: changing permissions of 'f': Operation not permitted\n\n"
        "[If the sandbox refused this: commands run without root or capabilities (no sudo, "
        "mount, chown to others, setuid or setgid bits), and unix sockets cannot be reached.]",
        True,
    )
