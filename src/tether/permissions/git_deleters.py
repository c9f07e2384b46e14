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

_RM_VALUED = frozenset({"--pathspec-from-file"})
_CLEAN_VALUED = frozenset({"-e", "--exclude"})


def git_deleting_equivalent(argv: Argv) -> Equivalent | None:
    """The `rm` command `git rm` or `git clean` does the work of, and what it deletes in
    words; None for other subcommands, a dry run, or `git rm --cached`."""
    i = subcommand_at(argv)
    if i >= len(argv) or argv[i] not in ("rm", "clean"):
        return None
    sub = argv[i]
    letters, longs, paths = _split(argv[i + 1 :], _RM_VALUED if sub == "rm" else _CLEAN_VALUED)
    if "n" in letters or "--dry-run" in longs or (sub == "rm" and "--cached" in longs):
        return None
    where = ", ".join(readable(p) for p in paths)
    if sub == "rm":
        flags = (*(("-r",) if "r" in letters else ()), *(("-f",) if "f" in letters else ()))
        if "--force" in longs and "-f" not in flags:
            flags = (*flags, "-f")
        trees = " and the trees in them" if "-r" in flags else ""
        does = f"`git rm` deletes {where or 'the files it is given'}{trees}"
        return Equivalent((("rm", *flags, "--", *paths),), does)
    trees = "d" in letters
    ignored = " and ignored" if "x" in letters or "X" in letters else ""
    kinds = f"untracked{ignored} files{' and directories' if trees else ''}"
    does = f"`git clean` deletes the {kinds} in {where or 'the whole working tree'}"
    flags = ("-r", "-f") if trees else ("-f",)
    return Equivalent((("rm", *flags, "--", *(paths or ["."])),), does)


def _split(args: Argv, valued: frozenset[str]) -> tuple[set[str], set[str], list[str]]:
    """The short option letters, the long options (names only) and the paths of `args`."""
    letters: set[str] = set()
    longs: set[str] = set()
    paths: list[str] = []
    skip = False
    for j, arg in enumerate(args):
        if skip:
            skip = False
        elif arg == "--":
            paths.extend(args[j + 1 :])
            break
        elif arg.startswith("--"):
            name, eq, _ = arg.partition("=")
            longs.add(name)
            skip = name in valued and not eq
        elif arg.startswith("-") and len(arg) > 1:
            for k, letter in enumerate(arg[1:]):
                if f"-{letter}" in valued:
                    skip = k == len(arg) - 2  # its value is the next word
                    break
                letters.add(letter)
        else:
            paths.append(arg)
    return letters, longs, paths
