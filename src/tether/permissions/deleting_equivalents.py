"""Programs whose own options delete files, as the `rm` they do the work of: a deny or ask
rule on `rm` (`Bash(rm:*)`, `Bash(rm -rf:*)`) holds for them too (equivalents.py). `find
START... -delete` is `rm -r -f -- START...` unless its tests pick a bounded, named set
(`-name '*.pyc'`: `rm -f -- START...`, only what they pick, a directory once empty);
`rsync --delete*` (the destination's extra files) and `--remove-source-files` (its sources;
old name `--remove-sent-files`) are `rm -r -f -- PATH...`; `tar --remove-files` and
`zip -m` (the files archived) and `shred -u` are `rm -f -- FILE...`. (`find -exec rm` and
`xargs rm` run rm themselves and are judged as it.)"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from tether.permissions.option_names import long_option
from tether.permissions.shell_words import is_literal, program_name, readable
from tether.permissions.tar_words import tar_words
from tether.slotted import Slotted

Argv = tuple[str, ...]

_FIND = frozenset({"find", "gfind", "bfs"})
_FIND_OPTIONS = frozenset({"-H", "-L", "-P"})
_FIND_GLOBAL = frozenset(
    {"-delete", "-depth", "-d", "-xdev", "-mount", "-follow", "-noleaf", "-daystart"}
    | {"-ignore_readdir_race", "-noignore_readdir_race", "-print", "-print0"}
)
"""find's words that pick nothing: with only these, `-delete` deletes the whole tree."""
_RSYNC_DELETES = (
    *("--delete", "--del", "--delete-before", "--delete-during", "--delete-delay"),
    *("--delete-after", "--delete-excluded", "--delete-missing-args"),
)
_TAR = frozenset({"tar", "gtar", "bsdtar"})


class Equivalent(Slotted):
    """The commands one does the work of, each tried against their deny and ask rules, and
    what it does in words, for the reason; `shown` when a form says what it does (`rm -f --
    x`), not only which rules hold (`git rebase ARGS` for `git replace ARGS`)."""

    __slots__ = ("does", "forms", "shown")
    forms: Final[tuple[Argv, ...]]
    does: Final[str]
    shown: Final[bool]

    def __init__(self, forms: tuple[Argv, ...], does: str, *, shown: bool = True) -> None:
        self.forms = forms
        self.does = does
        self.shown = shown


def deleting_equivalent(argv: Argv) -> Equivalent | None:
    """The `rm` command `argv` does the work of, and what it deletes in words; None when its
    options delete nothing."""
    name = program_name(argv[0])
    args = argv[1:]
    if name in _FIND and "-delete" in args:
        starts, expression = _find_parts(args)
        # Tests that pick a named set (a directory only once empty): `rm -f`; any other
        # expression may pick everything (`-mindepth 1`, `-name '*'`, `! -name x`), as
        # `rm -rf` does.
        tested = _names_a_set(expression)
        flags = ("-f",) if tested else ("-r", "-f")
        where = _listed(starts)
        picks = any(word not in _FIND_GLOBAL for word in expression)
        does = f"`{name} -delete` deletes {where} and everything in it"
        if tested:
            does = f"`{name} -delete` deletes the files its tests pick in {where}"
        elif picks:
            does = f"`{name} -delete` deletes what its tests pick in {where}, maybe all of it"
        return Equivalent((("rm", *flags, "--", *starts),), does)
    if name == "rsync":
        return _rsync(args)
    if name in _TAR:
        given = _first_long(args, ("--remove-files",))
        if given is not None:
            members = tar_words(args).members
            does = f"`{name} {given}` deletes the files it archives ({_listed(members)})"
            return Equivalent((("rm", "-f", "--", *members),), does)
    if name == "zip" and any(_short(arg, "m") for arg in args):
        members = _positionals(args)[1:]
        does = f"`zip -m` deletes the files it archives ({_listed(members)})"
        return Equivalent((("rm", "-f", "--", *members),), does)
    if name in ("shred", "gshred") and (
        any(_short(arg, "u") for arg in args) or _first_long(args, ("--remove",))
    ):
        files = _positionals(args)
        does = f"`{name} -u` overwrites and deletes {_listed(files)}"
        return Equivalent((("rm", "-f", "--", *files),), does)
    return None


def _rsync(args: tuple[str, ...]) -> Equivalent | None:
    """`--delete*` deletes what the destination holds that the sources do not;
    `--remove-source-files` deletes the sources it sent."""
    paths = _positionals(args)
    sources, destination = paths[:-1], paths[-1:]
    forms: list[Argv] = []
    does: list[str] = []
    given = _first_long(args, _RSYNC_DELETES)
    if given is not None:
        forms.append(("rm", "-r", "-f", "--", *destination))
        where = _listed(destination)
        does.append(f"`rsync {given}` deletes the files in {where} that the sources lack")
    removes = _first_long(args, ("--remove-source-files", "--remove-sent-files"))
    if removes is not None:
        forms.append(("rm", "-r", "-f", "--", *sources))
        does.append(f"`rsync {removes}` deletes the files it sends from {_listed(sources)}")
    return Equivalent(tuple(forms), "; ".join(does)) if forms else None


def _listed(paths: Sequence[str]) -> str:
    return ", ".join(readable(path) for path in paths) or "nothing named"


def _find_parts(args: tuple[str, ...]) -> tuple[list[str], tuple[str, ...]]:
    """find's starting points (`.` when none) and its expression."""
    i = 0
    while i < len(args) and (args[i] in _FIND_OPTIONS or args[i].startswith(("-D", "-O"))):
        i += 2 if args[i] == "-D" else 1
    starts: list[str] = []
    while i < len(args) and not args[i].startswith("-") and args[i] not in ("(", "!", ","):
        starts.append(args[i])
        i += 1
    return starts or ["."], args[i:]


_NAME_TESTS = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename"})
_BROADENING = frozenset({"!", "-not", "-o", "-or", ","})
_WILD = re.compile(r"\[[^]]*\]|[*?\\]")


def _names_a_set(expression: tuple[str, ...]) -> bool:
    """Whether find's tests before `-delete` can be shown to pick a bounded, named set: a
    name test whose pattern holds a fixed character (`*.pyc`, not `*` or `[a-z]*`), joined
    by no negation or alternative that would pick the rest."""
    before = expression[: expression.index("-delete")]
    if any(word in _BROADENING for word in before):
        return False
    for i, word in enumerate(before[:-1]):
        pattern = before[i + 1]
        last = pattern if word in ("-name", "-iname") else pattern.rpartition("/")[2]
        if word in _NAME_TESTS and is_literal(pattern) and _WILD.sub("", last).strip("."):
            return True
    return False


def _first_long(args: tuple[str, ...], options: tuple[str, ...]) -> str | None:
    for arg in args:
        if arg == "--":
            return None
        if arg.startswith("--"):
            given = long_option(arg, options, known=_RSYNC_KNOWN)
            if given is not None:
                return given[0]
    return None


_RSYNC_KNOWN = ("--del",)
"""rsync's `--del` is an option of its own (`--delete-during`), not a prefix."""


def _short(arg: str, letter: str) -> bool:
    return arg.startswith("-") and not arg.startswith("--") and letter in arg[1:]


def _positionals(args: tuple[str, ...]) -> list[str]:
    found: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            return found + list(args[i + 1 :])
        if not arg.startswith("-") or arg == "-":
            found.append(arg)
    return found
