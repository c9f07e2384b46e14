"""The seccomp program of sandboxed commands, as classic BPF: the system calls that reach past
the namespaces, refused with EPERM.

Sockets. A network namespace cuts TCP and UDP (and abstract unix sockets, which live in it),
but not the unix sockets that are files (`/run/docker.sock`, a Redis socket, a tmux socket in
/tmp): those are reached through the file system, which the sandbox shares. Nor does it cut
vsock (`AF_VSOCK`), which reaches the hypervisor and the other side of a virtual machine's
host channel whatever the namespace. So `socket(AF_UNIX, ...)` fails inside unless unix
sockets are allowed, and `socket(AF_VSOCK, ...)` while the network is off; `socketpair`
stays allowed (it reaches nothing outside), and so do all other socket families (the network
namespace deals with those).

Setuid and setgid files, always (as systemd's `RestrictSUIDSGID=`). When tether runs as
root, the command's uid maps to root outside: a file it makes is root's, and a setuid bit on
it would give root to whoever runs it later, outside the sandbox (`no_new_privs` holds only
inside). So `chmod`, `fchmod`, `fchmodat`, `fchmodat2` with S_ISUID or S_ISGID in the mode
fail, and so does creating a file or directory with them (`open`/`openat`/`creat` with
O_CREAT or O_TMPFILE, `mkdir(at)`, `mknod(at)`). `openat2`, whose mode is in memory where BPF
cannot read it, says ENOSYS, as on a kernel without it: libc and runtimes fall back to
`openat`. For an unprivileged user the same rule costs nothing (its files are its own) and
keeps the sandbox one policy.

The program checks the architecture first: a process can make 32-bit system calls on a
64-bit kernel (`int 0x80` on x86_64, AArch32 on arm64), whose numbers differ. On those the
multiplexed `socketcall`, whose arguments are in memory, fails as a whole. A system call from
an architecture the table does not know fails with EPERM; `io_uring_setup` fails too, since
io_uring makes sockets and files without these calls.
"""

from __future__ import annotations

import platform
import struct
from dataclasses import dataclass

AF_UNIX = 1
AF_VSOCK = 40
EPERM = 1
ENOSYS = 38

SETID_BITS = 0o6000
"""S_ISUID | S_ISGID."""
CREATING = 0o100 | 0o20000000
"""O_CREAT | __O_TMPFILE (the same bits on x86 and arm): open flags that take a mode."""

# Classic BPF opcodes (linux/filter.h) and seccomp return values (linux/seccomp.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JSET_K = 0x45
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000

# struct seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8 i (the low half on little-endian).
_NR, _ARCH = 0, 4


def _arg(index: int) -> int:
    return 16 + 8 * index


@dataclass(frozen=True)
class _ModeCall:
    """A call that sets or creates with a mode: where its mode is, and its open flags if any
    (the mode counts only when they create)."""

    numbers: tuple[int, ...]
    mode_arg: int
    flags_arg: int | None = None


@dataclass(frozen=True)
class _Arch:
    audit_arch: int
    socket: tuple[int, ...]
    """Numbers of socket(2), filtered on its first argument."""
    refused: tuple[int, ...]
    """Numbers refused outright: socketcall, io_uring_setup."""
    mode_calls: tuple[_ModeCall, ...]
    openat2: tuple[int, ...]


def _x32(*numbers: int) -> tuple[int, ...]:
    """The numbers and their x32 twins (the same with bit 30 set)."""
    return (*numbers, *(0x40000000 | n for n in numbers))


_X86_64 = _Arch(
    0xC000003E,
    _x32(41),
    _x32(425),
    (
        _ModeCall(_x32(90, 91, 83, 85), 1),  # chmod, fchmod, mkdir, creat
        _ModeCall(_x32(268, 452, 258), 2),  # fchmodat, fchmodat2, mkdirat
        _ModeCall(_x32(133), 1),  # mknod
        _ModeCall(_x32(259), 2),  # mknodat
        _ModeCall(_x32(2), 2, flags_arg=1),  # open
        _ModeCall(_x32(257), 3, flags_arg=2),  # openat
    ),
    _x32(437),
)
_I386 = _Arch(
    0x40000003,
    (359,),
    (102, 425),
    (
        _ModeCall((15, 94, 39, 8, 14), 1),  # chmod, fchmod, mkdir, creat, mknod
        _ModeCall((306, 452, 296, 297), 2),  # fchmodat, fchmodat2, mkdirat, mknodat
        _ModeCall((5,), 2, flags_arg=1),  # open
        _ModeCall((295,), 3, flags_arg=2),  # openat
    ),
    (437,),
)
_AARCH64 = _Arch(
    0xC00000B7,
    (198,),
    (425,),
    (
        _ModeCall((52,), 1),  # fchmod
        _ModeCall((53, 452, 34, 33), 2),  # fchmodat, fchmodat2, mkdirat, mknodat
        _ModeCall((56,), 3, flags_arg=2),  # openat
    ),
    (437,),
)
_ARM = _Arch(
    0x40000028,
    (281,),
    (102, 425),
    (
        _ModeCall((15, 94, 39, 8, 14), 1),  # chmod, fchmod, mkdir, creat, mknod
        _ModeCall((333, 452, 323, 324), 2),  # fchmodat, fchmodat2, mkdirat, mknodat
        _ModeCall((5,), 2, flags_arg=1),  # open
        _ModeCall((322,), 3, flags_arg=2),  # openat
    ),
    (437,),
)

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


Instruction = tuple[int, int | str, int | str, int]
"""(code, jump if true, jump if false, k); a jump is an offset or a label to resolve."""


def sandbox_filter(families: tuple[int, ...], machine: str | None = None) -> bytes:
    """The program refusing `socket(2)` in `families` (`AF_UNIX`, `AF_VSOCK`; may be empty)
    and setuid or setgid modes, as the bytes bwrap's `--seccomp FD` reads (an array of
    sock_filter).

    Raises KeyError for a machine not in `NATIVE` (check `supported` first)."""
    arches = NATIVE[(machine or platform.machine()).lower()]
    code: list[Instruction | str] = [(_LD_W_ABS, 0, 0, _ARCH)]
    code += [(_JEQ_K, f"arch{i}", 0, a.audit_arch) for i, a in enumerate(arches)]
    code.append((_JEQ_K, "deny", "deny", 0))  # an architecture not in the table
    for i, arch in enumerate(arches):
        code += [f"arch{i}", *_arch_block(arch, families, f"a{i}")]
    # The returns last: classic BPF jumps forward only.
    code += ["deny", (_RET_K, 0, 0, _RET_ERRNO | EPERM)]
    code += ["allow", (_RET_K, 0, 0, _RET_ALLOW)]
    code += ["nosys", (_RET_K, 0, 0, _RET_ERRNO | ENOSYS)]
    return b"".join(struct.pack("=HBBI", *insn) for insn in _assemble(code))


def _arch_block(arch: _Arch, families: tuple[int, ...], tag: str) -> list[Instruction | str]:
    """Load nr and dispatch: refused, openat2, socket on its family, mode calls on their
    mode (and flags); anything else allowed."""
    block: list[Instruction | str] = [(_LD_W_ABS, 0, 0, _NR)]
    block += [(_JEQ_K, "deny", 0, nr) for nr in arch.refused]
    block += [(_JEQ_K, "nosys", 0, nr) for nr in arch.openat2]
    if families:
        block += [(_JEQ_K, f"{tag}socket", 0, nr) for nr in arch.socket]
    for k, call in enumerate(arch.mode_calls):
        block += [(_JEQ_K, f"{tag}mode{k}", 0, nr) for nr in call.numbers]
    block.append((_JEQ_K, "allow", "allow", 0))
    if families:
        block += [f"{tag}socket", (_LD_W_ABS, 0, 0, _arg(0))]
        block += [(_JEQ_K, "deny", 0, family) for family in families]
        block.append((_JEQ_K, "allow", "allow", 0))
    for k, call in enumerate(arch.mode_calls):
        block.append(f"{tag}mode{k}")
        if call.flags_arg is not None:
            block += [(_LD_W_ABS, 0, 0, _arg(call.flags_arg)), (_JSET_K, 0, "allow", CREATING)]
        block += [(_LD_W_ABS, 0, 0, _arg(call.mode_arg)), (_JSET_K, "deny", "allow", SETID_BITS)]
    return block


def _assemble(code: list[Instruction | str]) -> list[tuple[int, int, int, int]]:
    """Labels resolved to offsets. Classic BPF jumps only forward, by at most 255: a jump
    back or further raises (the tables are far below that)."""
    labels: dict[str, int] = {}
    position = 0
    for item in code:
        if isinstance(item, str):
            labels[item] = position
        else:
            position += 1
    out: list[tuple[int, int, int, int]] = []
    for item in code:
        if isinstance(item, str):
            continue
        op, jt, jf, k = item
        here = len(out)
        out.append((op, _offset(jt, here, labels), _offset(jf, here, labels), k))
    return out


def _offset(target: int | str, here: int, labels: dict[str, int]) -> int:
    if isinstance(target, int):
        return target
    offset = labels[target] - here - 1
    if not 0 <= offset <= 255:
        raise ValueError(f"jump to {target} out of range: {offset}")
    return offset
