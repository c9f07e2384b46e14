"""The seccomp program, run by a classic-BPF interpreter written here from the kernel's
documented semantics: every architecture's table is checked, not only this machine's (the
live tests in test_escapes.py and test_kernel_files.py run it for real)."""

from __future__ import annotations

import struct

import pytest

from tether.sandbox.seccomp import AF_UNIX, AF_VSOCK, sandbox_filter

ALLOW, EPERM, ENOSYS = 0x7FFF0000, 0x00050001, 0x00050026
ARCH = {"x86_64": 0xC000003E, "i386": 0x40000003, "aarch64": 0xC00000B7, "arm": 0x40000028}
O_CREAT, O_TMPFILE, O_WRONLY = 0o100, 0o20200000, 0o1


def run_bpf(program: bytes, arch: int, nr: int, *args: int) -> int:
    """What the program returns for one system call (seccomp_data, little-endian)."""
    data = struct.pack("<iI", nr, arch) + struct.pack("<Q", 0)
    data += b"".join(struct.pack("<Q", a) for a in (*args, *[0] * (6 - len(args))))
    code = [struct.unpack("=HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    acc, pc = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        if op == 0x20:  # ld [k]
            acc = struct.unpack_from("<I", data, k)[0]
            pc += 1
        elif op in (0x15, 0x45):  # jeq k / jset k
            hit = acc == k if op == 0x15 else bool(acc & k)
            pc += 1 + (jt if hit else jf)
        elif op == 0x06:
            return k
        else:
            raise AssertionError(f"unexpected instruction {op:#x}")


# (arch, name, number, args) for calls that must be refused, then allowed, with
# families (AF_UNIX,): setuid/setgid in every mode-taking call; creation only when it creates.
REFUSED = [
    ("x86_64", "chmod", 90, (0, 0o4755)),
    ("x86_64", "fchmod", 91, (3, 0o2755)),
    ("x86_64", "fchmodat", 268, (3, 0, 0o6755)),
    ("x86_64", "fchmodat2", 452, (3, 0, 0o4700, 0)),
    ("x86_64", "x32 chmod", 0x40000000 | 90, (0, 0o4755)),
    ("x86_64", "open O_CREAT", 2, (0, O_CREAT | O_WRONLY, 0o4755)),
    ("x86_64", "openat O_CREAT", 257, (3, 0, O_CREAT, 0o2755)),
    ("x86_64", "openat O_TMPFILE", 257, (3, 0, O_TMPFILE | O_WRONLY, 0o4755)),
    ("x86_64", "creat", 85, (0, 0o4755)),
    ("x86_64", "mkdir", 83, (0, 0o2755)),
    ("x86_64", "mkdirat", 258, (3, 0, 0o2755)),
    ("x86_64", "mknod", 133, (0, 0o104755, 0)),
    ("x86_64", "mknodat", 259, (3, 0, 0o104755, 0)),
    ("x86_64", "socket AF_UNIX", 41, (AF_UNIX, 1, 0)),
    ("x86_64", "io_uring_setup", 425, (8, 0)),
    ("i386", "chmod", 15, (0, 0o4755)),
    ("i386", "fchmodat", 306, (3, 0, 0o4755)),
    ("i386", "openat O_CREAT", 295, (3, 0, O_CREAT, 0o4755)),
    ("i386", "socketcall", 102, (1, 0)),
    ("aarch64", "fchmod", 52, (3, 0o4755)),
    ("aarch64", "fchmodat", 53, (3, 0, 0o2755)),
    ("aarch64", "fchmodat2", 452, (3, 0, 0o2755, 0)),
    ("aarch64", "openat O_CREAT", 56, (3, 0, O_CREAT, 0o4755)),
    ("aarch64", "mkdirat", 34, (3, 0, 0o2755)),
    ("aarch64", "mknodat", 33, (3, 0, 0o104755, 0)),
    ("aarch64", "socket AF_UNIX", 198, (AF_UNIX, 1, 0)),
    ("arm", "chmod", 15, (0, 0o4755)),
    ("arm", "fchmodat", 333, (3, 0, 0o4755)),
    ("arm", "openat O_CREAT", 322, (3, 0, O_CREAT, 0o4755)),
    ("arm", "mkdirat", 323, (3, 0, 0o2755)),
]
ALLOWED = [
    ("x86_64", "chmod +x", 90, (0, 0o755)),
    ("x86_64", "fchmodat sticky", 268, (3, 0, 0o1777)),
    ("x86_64", "open without O_CREAT", 2, (0, O_WRONLY, 0o4755)),
    ("x86_64", "openat without O_CREAT", 257, (3, 0, 0, 0o6777)),
    ("x86_64", "openat O_CREAT plain", 257, (3, 0, O_CREAT, 0o644)),
    ("x86_64", "mkdir plain", 83, (0, 0o755)),
    ("x86_64", "socket AF_INET", 41, (2, 1, 0)),
    ("x86_64", "read", 0, (0, 0, 0)),
    ("i386", "chmod plain", 15, (0, 0o644)),
    ("aarch64", "fchmodat plain", 53, (3, 0, 0o755)),
    ("aarch64", "socket AF_INET6", 198, (10, 1, 0)),
    ("arm", "openat plain", 322, (3, 0, O_CREAT, 0o600)),
]


def machine_of(arch: str) -> str:
    return "aarch64" if arch in ("aarch64", "arm") else "x86_64"


@pytest.mark.parametrize(
    ("arch", "name", "nr", "args"), REFUSED, ids=[f"{a}-{n}" for a, n, *_ in REFUSED]
)
def test_refused(arch: str, name: str, nr: int, args: tuple[int, ...]) -> None:
    program = sandbox_filter((AF_UNIX,), machine_of(arch))
    assert run_bpf(program, ARCH[arch], nr, *args) == EPERM


@pytest.mark.parametrize(
    ("arch", "name", "nr", "args"), ALLOWED, ids=[f"{a}-{n}" for a, n, *_ in ALLOWED]
)
def test_allowed(arch: str, name: str, nr: int, args: tuple[int, ...]) -> None:
    program = sandbox_filter((AF_UNIX,), machine_of(arch))
    assert run_bpf(program, ARCH[arch], nr, *args) == ALLOW


@pytest.mark.parametrize("arch", list(ARCH))
def test_openat2_says_it_does_not_exist(arch: str) -> None:
    """Its mode is in memory BPF cannot read: libc falls back to openat, which is checked."""
    program = sandbox_filter((), machine_of(arch))
    assert run_bpf(program, ARCH[arch], 437, 3, 0, 0, 24) == ENOSYS


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_socket_families_only_those_given(machine: str) -> None:
    native = "x86_64" if machine == "x86_64" else "aarch64"
    nr = 41 if machine == "x86_64" else 198
    results = {
        families: [
            run_bpf(sandbox_filter(families, machine), ARCH[native], nr, f, 1, 0)
            for f in (AF_UNIX, AF_VSOCK)
        ]
        for families in ((), (AF_UNIX,), (AF_VSOCK,), (AF_UNIX, AF_VSOCK))
    }
    assert results == {
        (): [ALLOW, ALLOW],
        (AF_UNIX,): [EPERM, ALLOW],
        (AF_VSOCK,): [ALLOW, EPERM],
        (AF_UNIX, AF_VSOCK): [EPERM, EPERM],
    }


def test_an_unknown_architecture_is_refused() -> None:
    program = sandbox_filter((), "x86_64")
    assert run_bpf(program, 0xC00000F3, 0) == EPERM  # riscv64 calls on an x86_64 machine
