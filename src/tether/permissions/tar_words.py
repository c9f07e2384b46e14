"""tar's words read once, as GNU tar reads them: the archives it is given (`-f X`, `-cfX`,
`--file=X`, `--file X`, the old style's `cf X`) and the members it names (its other operands;
all words after `--`). Used for what reaches a remote shell (`HOST:FILE` archives:
remote_shells.py, launchers.py) and what `--remove-files` deletes (deleting_equivalents.py)."""

from __future__ import annotations

from typing import Final

from tether.slotted import Slotted

_VALUED_SHORT = frozenset("bCfFgHIKLNTVX")
"""Short options that take a value: the rest of their cluster, else the next word
(`-C DIR`, `-T LIST`, `-I PROG`, `-X FILE`...)."""
_VALUED_LONG = frozenset(
    {"--file", "--directory", "--files-from", "--exclude-from", "--exclude", "--format"}
    | {"--use-compress-program", "--info-script", "--new-volume-script", "--to-command"}
    | {"--listed-incremental", "--starting-file", "--tape-length", "--newer", "--label"}
    | {"--after-date", "--blocking-factor", "--rsh-command", "--checkpoint-action"}
    | {"--owner", "--group", "--mode", "--mtime", "--transform", "--xform", "--suffix"}
)
"""Long options whose value may be the next word (`--directory DIR`)."""


_NAMED = (*sorted(_VALUED_LONG), "--force-local")


def _spelled_out(name: str) -> str:
    """The long option an abbreviation stands for (`--fil=X` is `--file=X`, `--force-l` is
    `--force-local`), as tar's getopt takes a prefix; one of several (`--fi`: `--file` or
    `--files-from`) is taken as `--file`, the archive (what reaches a remote shell)."""
    if name in _NAMED or len(name) < 4:
        return name
    named = [option for option in _NAMED if option.startswith(name)]
    if "--file" in named:
        return "--file"
    return named[0] if len(named) == 1 else name


class TarWords(Slotted):
    """What tar's words name."""

    __slots__ = ("archives", "force_local", "members")
    archives: Final[tuple[str, ...]]
    members: Final[tuple[str, ...]]
    force_local: Final[bool]
    """`--force-local`: an archive named `HOST:FILE` is a local file."""

    def __init__(
        self, archives: tuple[str, ...], members: tuple[str, ...], force_local: bool
    ) -> None:
        self.archives = archives
        self.members = members
        self.force_local = force_local


def tar_words(args: tuple[str, ...]) -> TarWords:
    """The archives and members of `tar ARGS`; a member after `-C DIR` is below DIR."""
    words = _Reading()
    for i, arg in enumerate(args):
        if words.pending:
            words.value(words.pending.pop(0), arg)
            continue
        if arg == "--":
            words.members += [words.below(member) for member in args[i + 1 :]]
            break
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            name = _spelled_out(name)
            words.force_local = words.force_local or name == "--force-local"
            letter = {"--file": "f", "--directory": "C"}.get(name, "-")
            if eq:
                words.value(letter, value)
            elif name in _VALUED_LONG:
                words.pending.append(letter)
        elif arg.startswith("-") and len(arg) > 1:
            words.cluster(arg[1:])
        elif i == 0 and arg.isalpha():
            # the old style: `cf X`, each letter's value a word after it, in order
            words.pending += [c for c in arg if c in _VALUED_SHORT]
        else:
            words.members.append(words.below(arg))
    return TarWords(tuple(words.archives), tuple(words.members), words.force_local)


class _Reading:
    __slots__ = ("archives", "directory", "force_local", "members", "pending")

    def __init__(self) -> None:
        self.archives: list[str] = []
        self.members: list[str] = []
        self.directory = ""
        self.force_local = False
        self.pending: list[str] = []
        """The options whose values the next words are, in order."""

    def value(self, letter: str, value: str) -> None:
        if letter == "f":
            self.archives.append(value)
        elif letter == "C":
            self.directory = self.below(value)

    def below(self, path: str) -> str:
        """`path` from the directory `-C` moved tar to."""
        if not self.directory or path.startswith(("/", "~")):
            return path
        return f"{self.directory.rstrip('/')}/{path}"

    def cluster(self, letters: str) -> None:
        """Short options: the first that takes a value takes the rest of the cluster, or,
        when it ends the cluster, the next word."""
        for at, letter in enumerate(letters):
            if letter in _VALUED_SHORT:
                if letters[at + 1 :]:
                    self.value(letter, letters[at + 1 :])
                else:
                    self.pending.append(letter)
                return
