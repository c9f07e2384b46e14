"""ssh-family programs whose hosts their own files name, read when the command is judged and
judged as if the hosts were typed (remote_shells): GNU parallel's (and `sem`'s) options from
`~/.parallel/config` (`$PARALLEL_HOME/config`) and its `--profile`/`-J` files; a unison
profile (`unison NAME` reads `~/.unison/NAME.prf`, no operand `default.prf`; `$UNISON`
elsewhere): its `root` lines, and any host where it includes another file or names the
command it runs (`sshcmd`, `rshcmd`); an `lftp -f` script's URLs; rclone's configuration
(rclone_remotes). A file that cannot be
read (not there: nothing; elsewhere, or too large: any host) fails closed."""

from __future__ import annotations

import os
import re
import shlex
import stat
from pathlib import Path

from tether.permissions.deleting_equivalents import Equivalent
from tether.permissions.rclone_remotes import rclone_hosts
from tether.permissions.remote_shells import remote_shell_equivalent
from tether.permissions.shell_words import DYN, is_literal, program_name, readable

Argv = tuple[str, ...]
Assignments = tuple[tuple[str, str], ...]

_LIMIT = 65536
_ROOT = re.compile(r"^\s*root\s*=\s*(.+?)\s*$", re.MULTILINE)
_UNSEEN = re.compile(r"^\s*(include|source|sshcmd|rshcmd|servercmd)\b", re.MULTILINE)
_ANY = "\0any"


def config_hosts(
    argv: Argv, assignments: Assignments, home: Path, cwd: Path | None
) -> Equivalent | None:
    """`ssh HOST` for the first host `argv`'s own files name, from `cwd` (None: not known)."""
    if not argv:
        return None
    name = program_name(argv[0])
    args = argv[1:]
    if name in ("parallel", "sem"):
        words = _parallel_words(args, assignments, home)
        forms = (name, *words, *args)
    elif name == "unison":
        forms = ("unison", *_unison_roots(args, assignments, home), *args)
    elif name == "rclone":
        hosts = rclone_hosts(args, assignments, home, cwd, config_text)
        if not hosts:
            return None
        does = f"`rclone` reaches {readable(hosts[0])} by ssh, as its configuration says"
        return Equivalent((("ssh", hosts[0]),), does)
    elif name == "lftp":
        scripts = [v for o, v in zip(args, (*args[1:], ""), strict=True) if o == "-f"]
        texts = [_read(_place(s, cwd), missing=_ANY) for s in scripts]
        forms = ("lftp", *texts)
    else:
        return None
    if _ANY in forms:
        return Equivalent((("ssh", DYN),), f"`{name}` reaches the hosts its files name by ssh")
    found = remote_shell_equivalent(forms, assignments)
    if found is None or forms[1:] == args:
        return None  # nothing read beyond the command line (judged as typed)
    return Equivalent(found.forms, f"{found.does}, as its files say")


def _parallel_words(args: Argv, assignments: Assignments, home: Path) -> list[str]:
    """The options parallel reads from its files before the command line's."""
    where = [v for k, v in assignments if k == "PARALLEL_HOME"]
    if where and not all(is_literal(w) for w in where):
        return [_ANY]
    base = Path(where[-1]) if where else home / ".parallel"
    profiles = [v for o, v in zip(args, (*args[1:], ""), strict=True) if o in ("-J", "--profile")]
    profiles += [a.partition("=")[2] for a in args if a.startswith("--profile=")]
    words: list[str] = []
    for name in ("config", *profiles):
        if "/" in name or not is_literal(name):
            return [_ANY]
        text = _read(base / name, missing="" if name == "config" else _ANY)
        if text == _ANY:
            return [_ANY]
        for line in text.splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                try:
                    words += shlex.split(line)
                except ValueError:
                    return [_ANY]
    return words


def _unison_roots(args: Argv, assignments: Assignments, home: Path) -> list[str]:
    """The roots a unison profile names (`-root X` each), or `_ANY`."""
    operands = [a for a in args if not a.startswith("-")]
    if len(operands) == 2:
        return []  # two roots: no profile (its options still apply: default.prf)
    profile = operands[0] if operands else "default"
    where = [v for k, v in assignments if k == "UNISON"]
    if where and not all(is_literal(w) for w in where):
        return [_ANY]
    base = Path(where[-1]) if where else home / ".unison"
    named = base / (profile if profile.endswith(".prf") else f"{profile}.prf")
    # A profile named but not there yet may be written before unison runs: any host.
    text = _read(named, missing=_ANY if operands else "")
    if text == _ANY or _UNSEEN.search(text):
        return [_ANY]
    return [w for root in _ROOT.findall(text) for w in ("-root", root)]


def _place(word: str, cwd: Path | None) -> Path | None:
    if not is_literal(word):
        return None
    path = Path(word)
    return path if path.is_absolute() else cwd / path if cwd is not None else None


def _read(path: Path | None, missing: str = "") -> str:
    """A small text file's text: `missing` when it is not there (a file the command line
    names may be written before the program runs), `_ANY` when it cannot be read."""
    if path is None:
        return _ANY
    try:
        # Not blocking on a FIFO or a device (`-f /dev/stdin`): only a regular file is read.
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return missing
    except OSError:
        return _ANY
    with os.fdopen(handle, "rb") as file:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return _ANY
        data = file.read(_LIMIT + 1)
    if len(data) > _LIMIT:
        return _ANY
    return data.decode("utf-8", "replace")


def config_text(path: Path) -> str | None:
    """A configuration file's text for rclone_remotes: "" when not there, None unreadable."""
    text = _read(path)
    return None if text == _ANY else text
