"""Programs that start ssh for a remote path in their operands, as the `ssh HOST` they run: a
deny or ask rule on `ssh` (`Bash(ssh *)`) holds for them too (equivalents.py). `scp`, `sftp`
and `rsync` (without `-e`, whose command is judged as written) reach `[USER@]HOST:PATH` by
ssh; tar writes or reads an archive named `HOST:PATH` through a remote shell (rsh, ssh on most
systems) unless `--force-local` says the colon is part of a local name. `rsync://` and
`HOST::MODULE` talk to an rsync daemon directly."""

from __future__ import annotations

from tether.permissions.deleting_equivalents import Equivalent
from tether.permissions.shell_words import is_literal, program_name, readable
from tether.permissions.tar_words import tar_words

Argv = tuple[str, ...]

_TAR = frozenset({"tar", "gtar"})
_SSH_COPIERS = frozenset({"scp", "sftp", "rsync"})


def remote_shell_equivalent(argv: Argv) -> Equivalent | None:
    """`ssh HOST` for the first remote operand `argv` reaches by a remote shell, and what
    starts it in words; None when it reaches none."""
    name = program_name(argv[0])
    args = argv[1:]
    if name in _TAR:
        words = tar_words(args)
        if words.force_local:
            return None
        operands = list(words.archives)
    elif name in _SSH_COPIERS:
        if name == "rsync" and any(a in ("-e", "--rsh") or a.startswith("--rsh=") for a in args):
            return None
        operands = [arg for arg in args if not arg.startswith("-")]
    else:
        return None
    for operand in operands:
        host = _remote_host(operand, daemon=name == "rsync")
        if host is not None:
            does = f"`{name}` reaches {readable(operand)} by ssh"
            return Equivalent((("ssh", host),), does)
    return None


def _remote_host(word: str, *, daemon: bool) -> str | None:
    """The host of `[USER@]HOST:PATH` (a colon before any slash); None for a local path or,
    for rsync, a daemon's address."""
    if not is_literal(word) or word.startswith("rsync://"):
        return None
    head, colon, rest = word.partition(":")
    if not colon or not head or "/" in head:
        return None
    if daemon and rest.startswith(":"):
        return None
    return head.rpartition("@")[2] or None
