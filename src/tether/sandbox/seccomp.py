"""The seccomp program that keeps sandboxed commands off the sockets a network namespace does
not cut, as classic BPF.

A network namespace cuts TCP and UDP (and abstract unix sockets, which live in it), but not
the unix sockets that are files (`/run/docker.sock`, a Redis socket, a tmux socket in /tmp):
those are reached through the file system, which the sandbox shares. Nor does it cut vsock
(`AF_VSOCK`), which reaches the hypervisor and the other side of a virtual machine's host
channel whatever the namespace. So `socket(AF_UNIX, ...)` fails with EPERM inside unless unix
sockets are allowed, and `socket(AF_VSOCK, ...)` while the network is off; `socketpair`
stays allowed (it reaches nothing outside), and so do all other socket families (the network
namespace deals with those).

The program checks the architecture first: a process can make 32-bit system calls on a
64-bit kernel (`int 0x80` on x86_64, AArch32 on arm64), whose numbers differ. On those the
multiplexed `socketcall`, whose arguments are in memory where BPF cannot read them, fails
as a whole. A system call from an architecture the table does not know fails with EPERM;
`io_uring_setup` fails too, since io_uring can create sockets without the socket call.
"""

from __future__ import annotations

import platform
import struct
from dataclasses import dataclass

AF_UNIX = 1
AF_VSOCK = 40
EPERM = 1

# Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000

# struct seccomp_data: nr at 0, arch at 4, args[0] at 16 (its low half on little-endian).
_NR, _ARCH, _ARG0 = 0, 4, 16


@dataclass(frozen=True)
class _Arch:
    audit_arch: int
    socket: tuple[int, ...]
    """Numbers of socket(2), filtered on its first argument."""
    refused: tuple[int, ...]
    """Numbers refused outright: socketcall, io_uring_setup."""


_X86_64 = _Arch(0xC000003E, (41, 0x40000000 | 41), (425, 0x40000000 | 425))  # x32 too
_I386 = _Arch(0x40000003, (359,), (102, 425))
_AARCH64 = _Arch(0xC00000B7, (198,), (425,))
_ARM = _Arch(0x40000028, (281,), (102, 425))

NATIVE: dict[str, tuple[_Arch, ...]] = {
    "x86_64": (_X86_64, _I386),
    "amd64": (_X86_64, _I386),
    "aarch64": (_AARCH64, _ARM),
    "arm64": (_AARCH64, _ARM),
}
"""Per machine (`platform.machine()`): the architectures its processes may call in."""


def supported(machine: str | None = None) -> bool:
    """Whether a filter can be built for this machine's architecture."""
    return (machine or platform.machine()).lower() in NATIVE


def socket_filter(families: tuple[int, ...], machine: str | None = None) -> bytes:
    """The program refusing `socket(2)` in `families` (`AF_UNIX`, `AF_VSOCK`), as the bytes
    bwrap's `--seccomp FD` reads (an array of sock_filter).

    Raises KeyError for a machine not in `NATIVE` (check `supported` first)."""
    arches = NATIVE[(machine or platform.machine()).lower()]
    program: list[tuple[int, int, int, int]] = [(_LD_W_ABS, 0, 0, _ARCH)]
    blocks = [_arch_block(a, families) for a in arches]
    # Each arch test jumps over the blocks before its own; no match at all refuses.
    tests_left = len(arches)
    offset = 0
    for arch, block in zip(arches, blocks, strict=True):
        tests_left -= 1
        # From this test: skip the remaining tests and the fallback refusal, then earlier blocks.
        program.append((_JEQ_K, tests_left + 1 + offset, 0, arch.audit_arch))
        offset += len(block)
    program.append((_RET_K, 0, 0, _RET_ERRNO | EPERM))
    for block in blocks:
        program.extend(block)
    return b"".join(struct.pack("=HBBI", *insn) for insn in program)


def _arch_block(arch: _Arch, families: tuple[int, ...]) -> list[tuple[int, int, int, int]]:
    """Load nr; refuse the refused; for socket, refuse `families`; allow the rest."""
    deny = (_RET_K, 0, 0, _RET_ERRNO | EPERM)
    allow = (_RET_K, 0, 0, _RET_ALLOW)
    block: list[tuple[int, int, int, int]] = [(_LD_W_ABS, 0, 0, _NR)]
    # [ld nr] [jeq refused]* [jeq socket]* [allow] [deny] [ld arg0] [jeq family]* [allow]
    # [deny]
    n_refused, n_socket = len(arch.refused), len(arch.socket)
    for i, nr in enumerate(arch.refused):
        to_deny = (n_refused - i - 1) + n_socket + 1
        block.append((_JEQ_K, to_deny, 0, nr))
    for i, nr in enumerate(arch.socket):
        to_arg = (n_socket - i - 1) + 2
        block.append((_JEQ_K, to_arg, 0, nr))
    block += [allow, deny, (_LD_W_ABS, 0, 0, _ARG0)]
    for i, family in enumerate(families):
        block.append((_JEQ_K, len(families) - i, 0, family))  # past the others and allow
    block += [allow, deny]
    return block
