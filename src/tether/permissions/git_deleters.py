"""git's subcommands that delete files of the working tree, as the `rm` they do the work of: a
deny or ask rule on `rm` (`Bash(rm:*)`, `Bash(rm -rf *)`) holds for them too (equivalents.py).
`git rm [-r] [-f] PATH...` deletes the files it names (with `-r`, the trees) unless `--cached`
keeps them on disk; `git clean` deletes untracked files (`-x`, `-X`: ignored ones too; `-d`:
whole untracked directories) in the paths it names, or everywhere below. A dry run deletes
nothing. The subcommands that discard uncommitted work or files by overwriting or removing
them (`checkout -f`, `reset --hard`, `stash -u`, `worktree remove`...) are git_discarders'."""

from __future__ import annotations

from tether.permissions.deleting_equivalents import Equivalent
from tether.permissions.git_discarders import discarding_equivalent
from tether.permissions.git_names import subcommand_at
from tether.permissions.git_options import Grammar, read_options
from tether.permissions.path_kinds import KindOf, unknown_kind
from tether.permissions.shell_words import is_literal, readable

Argv = tuple[str, ...]

_RM = Grammar(
    {"n": "dry-run", "q": "quiet", "f": "force", "r": "r"},
    "dry-run quiet cached force ignore-unmatch sparse pathspec-file-nul",
    valued="pathspec-from-file",
)
_CLEAN = Grammar(
    {"q": "quiet", "n": "dry-run", "f": "force", "i": "interactive", "d": "d", "x": "x", "X": "X"},
    "quiet dry-run force interactive",
    valued="exclude",
    valued_short="e",
)


def git_deleting_equivalent(argv: Argv, kind_of: KindOf = unknown_kind) -> Equivalent | None:
    """The `rm` command a git subcommand does the work of, and what it deletes in words; None
    for those that delete nothing, a dry run, or `git rm --cached`. `kind_of` says what a
    path names on disk from where the shell is (path_kinds)."""
    i = subcommand_at(argv)
    if i >= len(argv):
        return None
    sub, args = argv[i], argv[i + 1 :]
    if sub == "rm":
        return _rm(args)
    if sub == "clean":
        return _clean(args)
    return discarding_equivalent(sub, args, _moved(argv[1:i], kind_of))


def _moved(options: Argv, kind_of: KindOf) -> KindOf:
    """`kind_of` from where git's own options take it: each `-C DIR` joined to the one
    before (an empty one stays); not known past a `-C` known only as it runs, or a
    `--work-tree`/`--git-dir`, which move what a path is relative to."""
    prefix = ""
    i = 0
    while i < len(options):
        name, eq, _ = options[i].partition("=")
        if name in ("--work-tree", "--git-dir"):
            return unknown_kind
        if name == "-C" and not eq and i + 1 < len(options):
            directory = options[i + 1]
            if not is_literal(directory):
                return unknown_kind
            prefix = directory if directory.startswith("/") else f"{prefix}{directory}"
            prefix = prefix if not prefix or prefix.endswith("/") else f"{prefix}/"
            i += 1
        i += 1
    return kind_of if not prefix else (lambda word: kind_of(f"{prefix}{word}"))


def _rm(args: Argv) -> Equivalent | None:
    read = read_options(args, _RM)
    if read.on & {"dry-run", "cached"}:
        return None
    paths = read.words
    where = ", ".join(readable(p) for p in paths)
    flags = (*(("-r",) if "r" in read.on else ()), *(("-f",) if "force" in read.on else ()))
    trees = " and the trees in them" if "-r" in flags else ""
    does = f"`git rm` deletes {where or 'the files it is given'}{trees}"
    return Equivalent((("rm", *flags, "--", *paths),), does)


def _clean(args: Argv) -> Equivalent | None:
    read = read_options(args, _CLEAN)
    if "dry-run" in read.on:
        return None
    paths = read.words
    where = ", ".join(readable(p) for p in paths)
    trees = "d" in read.on
    ignored = " and ignored" if read.on & {"x", "X"} else ""
    kinds = f"untracked{ignored} files{' and directories' if trees else ''}"
    does = f"`git clean` deletes the {kinds} in {where or 'the whole working tree'}"
    flags = ("-r", "-f") if trees else ("-f",)
    return Equivalent((("rm", *flags, "--", *(paths or ["."])),), does)
