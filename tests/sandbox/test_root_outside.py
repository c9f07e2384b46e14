"""As root the command's uid is root's outside, so owner bits let it change what root owns:
what it must still not do. Rewrite an existing setuid file through a shared mapping (the bit
would stay: a program of its own running as root outside), change the machine's device files
(`chmod` of /dev/null), or read root's secrets in /etc.

Every probe is harmless if the protection failed: the device file gets the mode it has (and
the test puts back any other), the secrets are counted, never printed."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from tether.sandbox.outside_home import root_secrets

from .conftest import Layout, bash_runner, needs_bwrap, sandboxed_context

pytestmark = needs_bwrap
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="the case of tether running as root")

MMAP_WRITE = (
    "python3 -c 'import mmap,os,sys\n"
    "for p in sys.argv[1:]:\n"
    "    try:\n"
    "        fd = os.open(p, os.O_RDWR)\n"
    '        m = mmap.mmap(fd, 0); m[:6] = b"PWNED!"; m.flush(); m.close(); os.close(fd)\n'
    '        print(p, "WRITTEN")\n'
    "    except OSError as e: print(p, os.strerror(e.errno))' "
)


def setid_copy(path: Path, mode: int) -> bytes:
    """A copy of `true` at `path` with `mode` (set-id bits made outside, as the user might)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile("/bin/true", path)
    path.chmod(mode)
    return path.read_bytes()


@needs_root
async def test_an_existing_setid_file_cannot_be_rewritten_through_a_shared_mapping(
    layout: Layout,
) -> None:
    """In the workspace (deep in it), TMPDIR and an extra writable directory: each set-id file
    is read-only (also once moved or linked elsewhere); an ordinary file still maps."""
    extra = layout.outside / "added"
    tmp = layout.scratch / "tmp"
    targets = {
        layout.workspace / "vendor" / "bin" / "su-copy": 0o4755,
        layout.workspace / "sg": 0o2755,
        tmp / "in-tmp": 0o4711,
        extra / "tool": 0o6755,
    }
    before = {path: setid_copy(path, mode) for path, mode in targets.items()}
    (layout.workspace / "plain").write_bytes(b"plain file\n")
    run = bash_runner(sandboxed_context(layout, writable=[str(extra)]))
    moved = layout.workspace / "moved"
    outcome = await run(
        command=f"mv sg {moved} 2>/dev/null; ln sg linked 2>/dev/null; "
        + MMAP_WRITE
        + " ".join(str(p) for p in [*targets, moved, layout.workspace / "linked"])
        + " plain"
    )
    after = {
        p: (p.read_bytes() == before[p], stat.S_IMODE(p.stat().st_mode)) if p.exists() else None
        for p in targets
    }
    assert (after, outcome.content.splitlines()[-1], moved.exists()) == (
        {p: (True, mode) for p, mode in targets.items()},
        "plain WRITTEN",
        False,
    ), outcome.content
    assert "WRITTEN" not in "".join(outcome.content.splitlines()[:-1]), outcome.content


async def test_the_machines_device_files_keep_their_mode(boundary: Layout) -> None:
    """chmod, chown and explicit times (each the node's own: nothing changes if allowed) of
    the device files inside: refused, and the host's nodes are not the ones inside (as root);
    the devices still work."""
    nodes = ["/dev/null", "/dev/zero", "/dev/full", "/dev/urandom", "/dev/tty"]
    modes = {n: os.stat(n) for n in nodes}
    run = bash_runner(sandboxed_context(boundary))
    try:
        outcome = await run(
            command="for n in " + " ".join(nodes) + "; do "
            'chmod "$(stat -c %a $n)" $n 2>/dev/null && echo "$n CHMOD"; '
            'chown "$(id -u):$(id -g)" $n 2>/dev/null && echo "$n CHOWN"; '
            'touch -r $n $n 2>/dev/null && echo "$n TOUCHED"; '
            "stat -c '%d:%i' $n; done; echo x > /dev/null && head -c 3 /dev/zero | wc -c"
        )
    finally:
        for node, was in modes.items():  # put back whatever a failure changed
            if os.stat(node).st_mode != was.st_mode:
                os.chmod(node, stat.S_IMODE(was.st_mode))
    lines = outcome.content.splitlines()
    changed = [line for line in lines if line.endswith(("CHMOD", "CHOWN", "TOUCHED"))]
    host = {f"{os.stat(n).st_dev}:{os.stat(n).st_ino}" for n in nodes}
    shared = [line for line in lines if line in host]
    expect_shared = len(nodes) if boundary.unprivileged else 0
    assert (changed, len(shared), lines[-1]) == ([], expect_shared, "3"), outcome.content


@needs_root
async def test_roots_secrets_in_etc_read_as_empty_and_ordinary_tools_work(
    layout: Layout,
) -> None:
    secrets = [p for p in root_secrets() if p.is_file()]
    folders = [p for p in root_secrets() if p.is_dir()]
    if not secrets:
        pytest.skip("no root secrets in /etc here")
    run = bash_runner(sandboxed_context(layout))
    outcome = await run(
        command="for f in "
        + " ".join(map(str, secrets))
        + '; do printf "%s " "$(cat $f 2>/dev/null | wc -c)"; done; echo; '
        + " ".join(f"ls -A {d} | wc -l;" for d in folders)
        + " getent passwd root | cut -d: -f1"
    )
    lines = outcome.content.splitlines()
    assert lines == [
        " ".join(["0"] * len(secrets)) + " ",
        *(["0"] * len(folders)),
        "root",
    ], outcome.content
