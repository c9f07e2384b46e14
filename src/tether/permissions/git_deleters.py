"""git's subcommands that delete files of the working tree, as the `rm` they do the work of: a
deny or ask rule on `rm` (`Bash(rm:*)`, `Bash(rm -rf *)`) holds for them too (equivalents.py).
`git rm [-r] [-f] PATH...` deletes the files it names (with `-r`, the trees) unless `--cached`
keeps them on disk; `git clean` deletes untracked files (`-x`, `-X`: ignored ones too; `-d`:
whole untracked directories) in the paths it names, or everywhere below. A dry run deletes
nothing."""

from __future__ import annotations

from tether.permissions.deleting_equivalents import Equivalent
from tether.permissions.git_names import subcommand_at
from tether.permissions.shell_words import readable

Argv = tuple[str, ...]

# Each subcommand's options as git's parse-options reads them: short letters and long names,
# each to the setting it turns on (a long one's `--no-` form turns it off again), and the
# options that take a value. The last spelling of a setting wins (`-n --no-dry-run` deletes).
_RM_SHORT = {"n": "dry-run", "q": "quiet", "f": "force", "r": "r"}
_RM_LONG = ("dry-run", "quiet", "cached", "force", "ignore-unmatch", "sparse", "pathspec-file-nul")
_RM_VALUED = frozenset({"pathspec-from-file"})
_CLEAN_SHORT = {
    **{"q": "quiet", "n": "dry-run", "f": "force", "i": "interactive"},
    **{"d": "d", "x": "x", "X": "X"},
}
_CLEAN_LONG = ("quiet", "dry-run", "force", "interactive")
_CLEAN_VALUED = frozenset({"exclude"})
_CLEAN_VALUED_SHORT = frozenset({"e"})


def git_deleting_equivalent(argv: Argv) -> Equivalent | None:
    """The `rm` command `git rm` or `git clean` does the work of, and what it deletes in
    words; None for other subcommands, a dry run, or `git rm --cached`."""
    i = subcommand_at(argv)
    if i >= len(argv) or argv[i] not in ("rm", "clean"):
        return None
    sub = argv[i]
    if sub == "rm":
        on, paths = _read(argv[i + 1 :], _RM_SHORT, _RM_LONG, _RM_VALUED, frozenset())
    else:
        on, paths = _read(
            argv[i + 1 :], _CLEAN_SHORT, _CLEAN_LONG, _CLEAN_VALUED, _CLEAN_VALUED_SHORT
        )
    if "dry-run" in on or (sub == "rm" and "cached" in on):
        return None
    where = ", ".join(readable(p) for p in paths)
    if sub == "rm":
        flags = (*(("-r",) if "r" in on else ()), *(("-f",) if "force" in on else ()))
        trees = " and the trees in them" if "-r" in flags else ""
        does = f"`git rm` deletes {where or 'the files it is given'}{trees}"
        return Equivalent((("rm", *flags, "--", *paths),), does)
    trees = "d" in on
    ignored = " and ignored" if "x" in on or "X" in on else ""
    kinds = f"untracked{ignored} files{' and directories' if trees else ''}"
    does = f"`git clean` deletes the {kinds} in {where or 'the whole working tree'}"
    flags = ("-r", "-f") if trees else ("-f",)
    return Equivalent((("rm", *flags, "--", *(paths or ["."])),), does)


def _read(
    args: Argv,
    short: dict[str, str],
    longs: tuple[str, ...],
    valued: frozenset[str],
    valued_short: frozenset[str],
) -> tuple[set[str], list[str]]:
    """The settings `args` leaves on, read in order as git does (the last spelling of one
    wins, `--no-NAME` turns NAME off, a long option may be any prefix of one name), and the
    paths. A word git would refuse turns nothing off: whatever it leaves on, deletes."""
    on: set[str] = set()
    paths: list[str] = []
    skip = False
    for j, arg in enumerate(args):
        if skip:
            skip = False
        elif arg == "--":
            paths.extend(args[j + 1 :])
            break
        elif arg.startswith("--"):
            name, eq, _ = arg[2:].partition("=")
            if (full := _long(name, (*longs, *valued))) in valued:
                skip = not eq
            elif full is not None and not eq:
                on.add(full)
            elif (off := _long(name.removeprefix("no-"), longs)) and name.startswith("no-"):
                on.discard(off)
        elif arg.startswith("-") and len(arg) > 1:
            for k, letter in enumerate(arg[1:]):
                if letter in valued_short:
                    skip = k == len(arg) - 2  # its value is the next word
                    break
                if letter in short:
                    on.add(short[letter])
        else:
            paths.append(arg)
    return on, paths


def _long(name: str, names: tuple[str, ...]) -> str | None:
    """The one long option `name` spells in full or as a prefix of only it; None otherwise."""
    if name in names:
        return name
    fits = [full for full in names if name and full.startswith(name)]
    return fits[0] if len(fits) == 1 else None
