"""The sandbox is the boundary, for root and for an unprivileged caller alike: no capability to
regain, no mount to undo, no user namespace to make, no setuid way back to root.

Each attack runs through the Bash tool as a session runs it; the host is checked afterwards."""

# Checking files on disk from async tests is deliberate: nothing else runs on the loop.

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tether.tools.registry import ToolOutcome

from .conftest import Layout, bash_runner, home_in_workspace, needs_bwrap, sandboxed_context

pytestmark = needs_bwrap


async def test_no_capabilities_and_not_root(boundary: Layout) -> None:
    run = bash_runner(sandboxed_context(boundary))
    outcome = await run(
        command="grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status; "
        'test "$(id -u)" != 0 && test "$(id -g)" != 0 && echo not-root'
    )
    zero = "0000000000000000"
    assert outcome == ToolOutcome(
        f"CapInh:\t{zero}\nCapPrm:\t{zero}\nCapEff:\t{zero}\nCapBnd:\t{zero}\nCapAmb:\t{zero}\n"
        "NoNewPrivs:\t1\nnot-root",
        False,
    )


@pytest.mark.parametrize(
    "attack",
    [
        "mount -o remount,bind,rw /",
        "mount -o remount,rw /",
        "mount --bind {outside} {ws}/bound",
        "mount -t tmpfs none {ws}/bound",
        "unshare -U -r sh -c 'mount -o remount,bind,rw / && echo > {outside}/escaped'",
        "unshare -m -r true",
        "unshare --user --map-root-user --mount true",
        "nsenter -t 1 -m -u -i -n -p true",
        "nsenter --user --target 1 true",
        "python3 -c 'import ctypes,sys; sys.exit(ctypes.CDLL(None).unshare(0x10000000))'",
        "chroot / true",
        "su -c true root </dev/null",
        "mount",  # setuid root on the host: must not regain root inside
    ],
)
async def test_privilege_attacks_fail(boundary: Layout, attack: str) -> None:
    (boundary.workspace / "bound").mkdir()
    keep = boundary.outside / "keep.txt"
    keep.write_text("original\n")
    run = bash_runner(sandboxed_context(boundary))
    command = attack.format(outside=boundary.outside, ws=boundary.workspace)
    if command == "mount":
        command = "mount -t tmpfs none bound"
    escape = Path("/usr") / f"tether-escape-{os.getpid()}"
    try:
        outcome = await run(
            command=f"{command} >/dev/null 2>&1 && echo ATTACK-WORKED; "
            f"(echo changed > {escape}) 2>/dev/null; ls -A bound; echo done"
        )
        assert outcome == ToolOutcome("done", False)
        assert keep.read_text() == "original\n"
        assert not (boundary.outside / "escaped").exists()
        assert not escape.exists()
    finally:
        escape.unlink(missing_ok=True)


async def test_remount_does_not_write_the_host(boundary: Layout) -> None:
    """The measured attack: a remount of / read-write, then a write to a host file."""
    target = Path("/etc") / f"tether-remount-{os.getpid()}"
    run = bash_runner(sandboxed_context(boundary))
    try:
        outcome = await run(
            command=f"mount -o remount,bind,rw / 2>/dev/null; echo pwned > {target}; echo done"
        )
        assert outcome.content.endswith("Read-only file system\ndone")
        assert not target.exists()
    finally:
        target.unlink(missing_ok=True)


@pytest.mark.parametrize(
    "undo", ["umount {p}", "umount -l {p}", "umount -f {p}", "mount --move {p} /mnt"]
)
async def test_hidden_paths_cannot_be_unmounted(boundary: Layout, undo: str) -> None:
    """The home's cover, and a credential place's inside a home that the workspace holds."""
    boundary = home_in_workspace(boundary)
    ssh = boundary.home / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text("PRIVATE KEY\n")
    boundary.hand_over()
    run = bash_runner(sandboxed_context(boundary))
    undone = "; ".join(undo.format(p=p) for p in (boundary.home, ssh))
    outcome = await run(command=f"({undone}; cat {ssh}/id_rsa) 2>/dev/null; echo done")
    assert outcome == ToolOutcome("done", False)


async def test_other_users_files_stay_closed(boundary: Layout) -> None:
    """Without capabilities, file modes hold: another user's home (under /home) stays shut."""
    private = Path(tempfile.mkdtemp(prefix="tether-other-user-", dir="/tmp"))
    try:
        (private / "secret.txt").write_text("SECRET\n")
        os.chown(private, 4242, 4242)
        run = bash_runner(sandboxed_context(boundary))
        outcome = await run(command=f"cat {private}/secret.txt || echo refused")
        assert outcome.content.endswith("Permission denied\nrefused")
        assert outcome.is_error is False
    finally:
        shutil.rmtree(private)
