"""The local paths rclone's operands name, as reads and writes: a path with no remote
(`rclone copy src /x/dst`), an on-the-fly local remote (`:local:/x`, `:local,opt=v:/x`), and a
remote its configuration defines as local (`type = local`, or an alias of a local path:
rclone_remotes.local_roots). Copying and syncing read the sources and write the destination
(`move` deletes its sources: written too); deleting and making commands write their
operand; listing and checking ones read. Flags may stand anywhere (cobra's parser, read by
option_names): the values of those known to take one are not operands, and `--backup-dir`,
`--log-file`, `--cache-dir`, `--temp-dir` are writes, `--compare-dest`/`--copy-dest`, the
filter files, `--config` and the TLS files reads, each also as its variable
(`RCLONE_CACHE_DIR`); `config create|update|...` writes the configuration `--config` or
`$RCLONE_CONFIG` names (the home's without); `selfupdate` replaces rclone itself
(`REPLACES_ITSELF`, asked), or writes its `--output`; a connection string's `ssh=CMD` is a
program it runs.
A local directory it copies, serves, checks, hashes or prints is read whole, dotfiles and
all, as `grep -r` reads it (`trees`); the symlinks below are followed with `-L` only."""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import combinations
from typing import Final

from tether.permissions.option_names import OptionGrammar, option_pairs, plain_operands
from tether.permissions.shell_words import HOME
from tether.slotted import Slotted

_REMOTE = re.compile(r"(:?)([^:/\\,]+)(,[^:]*)?:(.*)", re.S)
_COPIES = frozenset({"copy", "sync", "copyto", "move", "moveto", "bisync", "copyurl"})
_SOURCES_WRITTEN = frozenset({"move", "moveto", "bisync"})
_WRITES = frozenset(
    {"delete", "deletefile", "purge", "rmdir", "rmdirs", "mkdir", "touch", "rcat", "dedupe"}
    | {"cleanup", "settier"}
)
_READS = frozenset(
    {"ls", "lsd", "lsl", "lsf", "lsjson", "cat", "size", "md5sum", "sha1sum", "hashsum", "tree"}
    | {"check", "cryptcheck", "checksum", "ncdu", "serve"}
)
_MOUNTS = frozenset({"mount", "nfsmount", "cmount"})
_WRITE_OPTIONS = frozenset(
    {"--backup-dir", "--log-file", "--dump-filters", "--cache-dir", "--temp-dir"}
    | {"--cpuprofile", "--memprofile", "--output-file"}  # md5sum/hashsum's `--output-file`
)
_READ_OPTIONS = frozenset(
    {"--compare-dest", "--copy-dest", "--exclude-from", "--include-from", "--filter-from"}
    | {"--files-from", "--files-from-raw", "--password-command", "--config", "--client-cert"}
    | {"--client-key", "--ca-cert", "--htpasswd", "--cert", "--key", "--client-ca"}
    | {"--template"}
)
PATH_VARIABLES = frozenset(
    "RCLONE_" + option[2:].upper().replace("-", "_") for option in _WRITE_OPTIONS | _READ_OPTIONS
)
"""Each of those flags as its variable (`--cache-dir`: `RCLONE_CACHE_DIR`)."""
_TREES = frozenset(
    {"copy", "sync", "copyto", "move", "moveto", "bisync", "check", "cryptcheck", "checksum"}
    | {"md5sum", "sha1sum", "hashsum", "cat", "serve"}
    | _MOUNTS
)
"""Commands that read what is below a directory operand, not only its names (`ls` lists)."""
_FOLLOWS = frozenset({"-L", "--copy-links"})
_VALUED = (
    _WRITE_OPTIONS
    | _READ_OPTIONS
    | {"--transfers", "--checkers", "--log-level", "--exclude", "--include", "--filter"}
    | {"--min-size", "--max-size", "--min-age", "--max-age", "--bwlimit", "--suffix"}
    | {"--retries", "--low-level-retries", "--timeout", "--contimeout", "--stats"}
    | {"--order-by", "--max-transfer", "--max-depth", "--buffer-size", "--user-agent"}
    | {"--multi-thread-streams", "--track-renames-strategy", "--header", "--output"}
    | {"--addr", "--baseurl", "--realm", "--user", "--pass", "--salt"}  # serve's
)
_CONFIG_WRITES = frozenset(
    {"create", "update", "delete", "password", "touch", "rename", "copy", "reconnect"}
    | {"disconnect", "edit"}
)
"""`rclone config VERB`s that write its configuration file."""
_GENERATED: Mapping[str, tuple[int, str]] = {
    "completion": (1, "/etc/bash_completion.d/rclone"),
    "genautocomplete": (1, "/etc/bash_completion.d/rclone"),
    "gendocs": (0, ""),
    "test": (1, ""),
    "tree": (0, ""),
}
"""Commands writing a file they generate: which operand names it, and where without one."""
_TREE_OUTPUT = OptionGrammar(("-o", "--output"), grouped=True)
_DEFAULT_CONFIG = HOME + "/.config/rclone/rclone.conf"
_GRAMMAR = OptionGrammar(tuple(sorted(_VALUED)))
"""cobra's flags (pflag): any order, `--name VALUE` or `--name=VALUE`, no abbreviations."""
REPLACES_ITSELF = (
    "rclone selfupdate replaces the rclone program, outside the workspace, with one it "
    "downloads: it runs at every later rclone command"
)


class RclonePlaces(Slotted):
    """The local paths rclone reads as files, reads whole (`trees`) and writes, as written,
    and whether it follows symlinks below the trees."""

    __slots__ = ("follows", "reads", "replaces", "runs", "trees", "writes")
    reads: Final[tuple[str, ...]]
    trees: Final[tuple[str, ...]]
    writes: Final[tuple[str, ...]]
    follows: Final[bool]
    runs: Final[tuple[str, ...]]
    """The programs its connection strings name (`:sftp,ssh=CMD:`): judged as commands."""
    replaces: Final[bool]
    """It replaces the rclone program itself (`selfupdate` without `--output`)."""

    def __init__(
        self,
        reads: tuple[str, ...] = (),
        trees: tuple[str, ...] = (),
        writes: tuple[str, ...] = (),
        *,
        follows: bool = False,
        runs: tuple[str, ...] = (),
        replaces: bool = False,
    ) -> None:
        self.reads = reads
        self.trees = trees
        self.writes = writes
        self.follows = follows
        self.runs = runs
        self.replaces = replaces


def rclone_places(
    argv: tuple[str, ...],
    roots: Mapping[str, str] | None,
    assignments: tuple[tuple[str, str], ...] = (),
) -> RclonePlaces:
    """What `rclone ARGS` reads and writes of the local disk (`$RCLONE_CONFIG` read as
    `--config` is) and the programs its connection strings start; `roots`: the
    configuration's local remotes (None: not read, none taken as local). rclone has
    hundreds of flags (each backend's too): a `--flag` not known to be one or the other, or
    a short one (`-X`, a cluster `-vX`) with a letter not known to be a flag, followed by a
    word, is read both ways (`--tpslimit 1 copy r: OUT`, `-X 1 copy r: OUT`), every
    combination of them, what any reading reads or writes taken."""
    unknown = sorted(dict.fromkeys(a for a in _options(argv[1:]) if _may_take_value(a)))
    if len(unknown) > _READINGS_BOUND:
        # Too many readings to try: each operand is taken as written too.
        found = _places(argv, roots, assignments, _VALUED | frozenset(unknown))
        plain = _places(argv, roots, assignments, _VALUED)
        words = plain_operands(argv[1:], _VALUED)
        anywhere = tuple(p for o in words[1:] if (p := _local(o, roots)) is not None)
        return _joined((found, plain, RclonePlaces(writes=anywhere)))
    readings = (
        _places(argv, roots, assignments, _VALUED | frozenset(chosen))
        for size in range(len(unknown) + 1)
        for chosen in combinations(unknown, size)
    )
    return _joined(tuple(readings))


_READINGS_BOUND = 6
"""Unknown flags read each way, every combination, up to this many (64 readings)."""
_BOOLEAN_SHORT = frozenset("cIlLMniPquvxhV")
"""rclone's global short flags, none taking a value (`-c` `--checksum` ... `-V` `--version`):
any other letter may be a command's or a backend's taking one (lsf's `-F FORMAT`)."""


def _options(args: tuple[str, ...]) -> tuple[str, ...]:
    """The option words before `--`."""
    ends = args.index("--") if "--" in args else len(args)
    return tuple(a for a in args[:ends] if a.startswith("-") and a != "-")


def _may_take_value(option: str) -> bool:
    """Whether an option word not known to take a value may take the next word: an unknown
    `--flag`, or a short one or cluster with a letter not known to be a flag (`-X`, `-vX`)."""
    if "=" in option or option in _VALUED:
        return False
    if option.startswith("--"):
        return True
    return any(letter not in _BOOLEAN_SHORT for letter in option[1:])


def _joined(readings: tuple[RclonePlaces, ...]) -> RclonePlaces:
    """What any of the readings reads, writes, follows, runs or replaces."""
    return RclonePlaces(
        _union(*(r.reads for r in readings)),
        _union(*(r.trees for r in readings)),
        _union(*(r.writes for r in readings)),
        follows=any(r.follows for r in readings),
        runs=_union(*(r.runs for r in readings)),
        replaces=any(r.replaces for r in readings),
    )


def _union(*each: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(p for one in each for p in one))


def _places(
    argv: tuple[str, ...],
    roots: Mapping[str, str] | None,
    assignments: tuple[tuple[str, str], ...],
    valued: frozenset[str],
) -> RclonePlaces:
    reads: list[str] = []
    writes: list[str] = []
    for option in _WRITE_OPTIONS | _READ_OPTIONS:
        variable = "RCLONE_" + option[2:].upper().replace("-", "_")  # PATH_VARIABLES
        given = [v for k, v in assignments if k == variable][-1:]
        (writes if option in _WRITE_OPTIONS else reads).extend(given)
    args = argv[1:]
    pairs = option_pairs(args, _GRAMMAR)
    for name, value in pairs:
        if name in _WRITE_OPTIONS:
            writes.append(value)
        elif name in _READ_OPTIONS:
            reads.append(value)
    words = plain_operands(args, valued)
    if words[:1] == ["config"] and words[1:2] and words[1] in _CONFIG_WRITES:
        # The configuration it reads is the one it writes: its remotes, which are local,
        # which programs they run.
        given = [v for k, v in pairs if k == "--config"] or [
            v for k, v in assignments if k == "RCLONE_CONFIG"
        ]
        writes.append(given[-1] if given else _DEFAULT_CONFIG)
    runs = tuple(program for word in words for program in _connection_programs(word))
    if not words:
        return RclonePlaces(tuple(reads), (), tuple(writes))
    command, operands = words[0], words[1:]
    if command in ("serve", "hashsum") and operands:
        operands = operands[1:]  # `rclone serve http REMOTE`, `rclone hashsum md5 REMOTE`
    if command == "selfupdate":
        # It replaces the rclone program that runs (`--output`: writes there instead).
        output = [v for k, v in option_pairs(args, _GRAMMAR) if k == "--output"][-1:]
        return RclonePlaces(tuple(reads), (), (*writes, *output), runs=runs, replaces=not output)
    if command in _GENERATED:
        # `completion bash [FILE]` (without: bash's system directory), `gendocs DIR`, `test
        # makefiles DIR`, `tree -o FILE`.
        at, default = _GENERATED[command]
        if command == "test":
            at = 1 if operands[:1] == ["makefiles"] else len(operands)
        named = operands[at : at + 1] or ([default] if default else [])
        if command == "tree":
            named = [v for k, v in option_pairs(args, _TREE_OUTPUT) if k in ("-o", "--output")]
            return RclonePlaces(
                (*reads, *(p for o in operands if (p := _local(o, roots)) is not None)),
                (),
                (*writes, *named),
                runs=runs,
            )
        return RclonePlaces(tuple(reads), (), (*writes, *named), runs=runs)
    if command == "copyurl" and operands:
        operands = operands[1:]  # `rclone copyurl URL DEST`: the URL is fetched
        reads_now: list[str] = []
        written = operands
    elif command in _COPIES or command in _MOUNTS:
        reads_now, written = operands[:-1], operands[-1:]
        if command in _SOURCES_WRITTEN:
            written = operands
    elif command in _WRITES:
        reads_now, written = [], operands
    elif command in _READS:
        reads_now, written = operands, []
    else:
        reads_now, written = [], []
    read = [p for o in reads_now if (p := _local(o, roots)) is not None]
    writes += [p for o in written if (p := _local(o, roots)) is not None]
    if command in _TREES:
        trees = read
    else:
        reads, trees = reads + read, []
    follows = any(
        a in _FOLLOWS or (not a.startswith("--") and "L" in a[1:]) for a in _options(args)
    )
    return RclonePlaces(tuple(reads), tuple(trees), tuple(writes), follows=follows, runs=runs)


_PROGRAM_PARAMETERS = frozenset({"ssh"})
"""Backend parameters naming a program rclone starts here (sftp's `ssh`)."""


def _connection_programs(operand: str) -> list[str]:
    """The programs an operand's connection string names (`:sftp,ssh=CMD:/`, `remote,ssh=CMD:`;
    a value may be quoted)."""
    found = _REMOTE.fullmatch(operand)
    if found is None or found.group(3) is None:
        return []
    programs: list[str] = []
    for part in found.group(3)[1:].split(","):
        key, eq, value = part.partition("=")
        if eq and key.strip().lower().replace("-", "_") in _PROGRAM_PARAMETERS:
            programs.append(value.strip().strip("'\""))
    return programs


def _local(operand: str, roots: Mapping[str, str] | None) -> str | None:
    """The local path an operand names, or None for a remote one."""
    found = _REMOTE.fullmatch(operand)
    if found is None:
        return operand
    fly, name, path = found.group(1), found.group(2), found.group(4)
    if fly:
        return (path or ".") if name == "local" else None
    root = roots.get(name) if roots is not None else None
    if root is None:
        return None
    if not root:
        return path or "."
    return f"{root.rstrip('/')}/{path}" if path else root
