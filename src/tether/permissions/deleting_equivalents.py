"""Programs whose own options delete files, as the `rm` they do the work of: a deny or ask
rule on `rm` (`Bash(rm:*)`, `Bash(rm -rf:*)`) holds for them too (equivalents.py). `find
START... -delete` is `rm -r -f -- START...` (with a test, `rm -f -- START...`: only what it
picks, a directory once empty); `rsync --delete*` (the destination's extra files) and
`--remove-source-files` (its sources) are `rm -r -f -- PATH...`; `tar --remove-files` and
`zip -m` (the files archived) and `shred -u` are `rm -f -- FILE...`. (`find -exec rm` and
`xargs rm` run rm themselves and are judged as it.)"""

from __future__ import annotations

from tether.permissions.option_names import long_option
from tether.permissions.shell_words import program_name

_FIND = frozenset({"find", "gfind", "bfs"})
_FIND_OPTIONS = frozenset({"-H", "-L", "-P"})
_FIND_GLOBAL = frozenset(
    {"-delete", "-depth", "-d", "-xdev", "-mount", "-follow", "-noleaf", "-daystart"}
    | {"-ignore_readdir_race", "-noignore_readdir_race", "-print", "-print0"}
)
"""find's words that pick nothing: with only these, `-delete` deletes the whole tree."""
_RSYNC_DELETES = (
    *("--delete", "--del", "--delete-before", "--delete-during", "--delete-delay"),
    *("--delete-after", "--delete-excluded", "--delete-missing-args", "--remove-source-files"),
)
_TAR = frozenset({"tar", "gtar", "bsdtar"})


def deleting_equivalent(argv: tuple[str, ...]) -> tuple[tuple[str, ...], str] | None:
    """The `rm` command `argv` does the work of, and the words that do it; None when its
    options delete nothing."""
    name = program_name(argv[0])
    args = argv[1:]
    if name in _FIND and "-delete" in args:
        starts, expression = _find_parts(args)
        # A test before it picks what is deleted (a directory only once empty): `rm -f`; with
        # none, the whole tree goes, as with `rm -rf`.
        tested = any(word not in _FIND_GLOBAL for word in expression)
        flags = ("-f",) if tested else ("-r", "-f")
        return ("rm", *flags, "--", *starts), f"{name} -delete"
    if name == "rsync":
        given = _first_long(args, _RSYNC_DELETES)
        if given is not None:
            return ("rm", "-r", "-f", "--", *_positionals(args)), f"rsync {given}"
    if name in _TAR:
        given = _first_long(args, ("--remove-files",))
        if given is not None:
            return ("rm", "-f", "--", *_positionals(args)), f"{name} {given}"
    if name == "zip" and any(_short(arg, "m") for arg in args):
        return ("rm", "-f", "--", *_positionals(args)[1:]), "zip -m"
    if name in ("shred", "gshred") and (
        any(_short(arg, "u") for arg in args) or _first_long(args, ("--remove",))
    ):
        return ("rm", "-f", "--", *_positionals(args)), f"{name} -u"
    return None


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
