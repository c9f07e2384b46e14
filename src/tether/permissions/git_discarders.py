"""git's subcommands that discard work in the working tree by overwriting or removing files,
as the `rm -r -f` of what they discard (`rm -f` of a path that is a file on disk, `git
checkout -- src/app.py`: `_discards`, path_kinds): a deny or ask rule on `rm` holds for them too
(git_deleters, equivalents.py). Their options are read as git reads them (git_options):
`checkout -f`/`--force` (the whole tree's uncommitted changes), `checkout [REV] -- PATH`
and `checkout PATH` (those paths'), `switch -f`/`--discard-changes`, `restore` of the
working tree (its default), `reset --hard`, `read-tree -u` (`--reset`, `-m`, `--empty`),
`checkout-index -f`, `stash -u`/`-a` (the untracked files it takes away), `sparse-checkout
set|add|reapply|init` (every file outside its patterns), `worktree remove` and `submodule
deinit` (the directories, with `-f` their changes and untracked files too), `mv -f` (the
file it overwrites)."""

from __future__ import annotations

import re

from tether.permissions.deleting_equivalents import Equivalent
from tether.permissions.git_options import Grammar, Read, read_options
from tether.permissions.git_words import only_a_path
from tether.permissions.path_kinds import KindOf, unknown_kind
from tether.permissions.shell_words import is_literal, readable

Argv = tuple[str, ...]

_WHOLE = ["."]
_CHECKOUT = Grammar(
    {"f": "force", "q": "quiet", "m": "merge", "p": "patch", "d": "detach", "t": "track"},
    "force quiet merge patch detach track ours theirs overlay ignore-skip-worktree-bits "
    "progress guess recurse-submodules ignore-other-worktrees overwrite-ignore "
    "pathspec-file-nul",
    valued="orphan conflict pathspec-from-file",
    valued_short="bB",
)
_SWITCH = Grammar(
    {"f": "force", "q": "quiet", "m": "merge", "d": "detach", "t": "track"},
    "discard-changes force quiet merge detach track guess progress recurse-submodules "
    "ignore-other-worktrees",
    valued="create force-create orphan conflict",
    valued_short="cC",
)
_RESTORE = Grammar(
    {"W": "worktree", "S": "staged", "p": "patch", "q": "quiet", "m": "merge"},
    "worktree staged patch quiet merge ours theirs overlay ignore-unmerged "
    "ignore-skip-worktree-bits progress recurse-submodules pathspec-file-nul",
    valued="source conflict pathspec-from-file",
    valued_short="s",
)
_RESET = Grammar(
    {"q": "quiet", "N": "intent-to-add", "p": "patch"},
    "quiet hard soft mixed keep merge patch intent-to-add recurse-submodules refresh "
    "pathspec-file-nul",
    valued="pathspec-from-file",
    exclusive="hard soft mixed keep merge",
)
_READ_TREE = Grammar(
    {"m": "merge", "u": "update", "i": "i", "n": "dry-run", "v": "verbose"},
    "merge reset update dry-run trivial aggressive empty quiet recurse-submodules verbose",
    valued="prefix index-output exclude-per-directory",
)
_CHECKOUT_INDEX = Grammar(
    {"a": "all", "f": "force", "n": "no-create", "q": "quiet", "u": "index", "z": "z"},
    "all force quiet no-create index stdin temp ignore-skip-worktree-bits",
    valued="prefix stage",
)
_STASH = Grammar(
    {
        "k": "keep-index",
        "p": "patch",
        "q": "quiet",
        "u": "include-untracked",
        "a": "all",
        "S": "staged",
    },
    "keep-index patch quiet include-untracked all staged pathspec-file-nul",
    valued="message pathspec-from-file",
    valued_short="m",
)
_FORCED = Grammar({"f": "force", "q": "quiet"}, "force quiet all")
_MV = Grammar(
    {"f": "force", "k": "k", "n": "dry-run", "v": "verbose"}, "force dry-run verbose sparse"
)
_SPARSE_WRITERS = frozenset({"set", "add", "reapply", "init"})
_EXTENSION = re.compile(r"\.[A-Za-z]\w*\Z")


def discarding_equivalent(
    sub: str, args: Argv, kind_of: KindOf = unknown_kind
) -> Equivalent | None:
    """The `rm` a git subcommand does the work of by discarding files or their changes, with
    what it discards in words; None when it discards nothing. `kind_of` says which paths
    are files on disk (path_kinds): their discard is `rm -f`, the rest's `rm -r -f`."""
    if sub == "checkout":
        return _checkout(read_options(args, _CHECKOUT), kind_of)
    if sub == "switch":
        read = read_options(args, _SWITCH)
        forced = read.on & {"force", "discard-changes"}
        return _discards(_WHOLE, "`git switch --discard-changes`") if forced else None
    if sub == "restore":
        return _restore(read_options(args, _RESTORE), kind_of)
    if sub == "reset":
        hard = "hard" in read_options(args, _RESET).on
        return _discards(_WHOLE, "`git reset --hard`") if hard else None
    if sub == "read-tree":
        read = read_options(args, _READ_TREE)
        updates = "update" in read.on and not read.on & {"dry-run", "prefix"}
        return _discards(_WHOLE, "`git read-tree -u`") if updates else None
    if sub == "checkout-index":
        return _checkout_index(read_options(args, _CHECKOUT_INDEX), kind_of)
    if sub == "stash":
        return _stash(args)
    if sub == "sparse-checkout" and args and args[0] in _SPARSE_WRITERS:
        does = f"`git sparse-checkout {args[0]}` removes every file outside its patterns from"
        return Equivalent((("rm", "-r", "-f", "--", "."),), f"{does} the whole working tree")
    return _removes(sub, args)


def _removes(sub: str, args: Argv) -> Equivalent | None:
    """`worktree remove DIR`, `submodule deinit PATH`: the directories they delete (`-f`:
    with their changes and untracked files); `mv -f SRC DST`: the file it overwrites."""
    if sub == "submodule":
        while args and args[0] in ("-q", "--quiet"):
            args = args[1:]
    if sub in ("worktree", "submodule") and args and args[0] in ("remove", "deinit"):
        read = read_options(args[1:], _FORCED)
        paths = read.words or _WHOLE
        flags = ("-r", "-f") if "force" in read.on else ("-r",)
        where = "every one" if paths == _WHOLE else ", ".join(map(readable, paths))
        does = f"`git {sub} {args[0]}` deletes the files of {where}"
        return Equivalent((("rm", *flags, "--", *paths),), does)
    if sub == "mv":
        read = read_options(args, _MV)
        if "force" not in read.on or "dry-run" in read.on or len(read.words) < 2:
            return None
        target = read.words[-1]
        does = f"`git mv -f` overwrites {readable(target)}"
        return Equivalent((("rm", "-f", "--", target),), does)
    return None


def _checkout(read: Read, kind_of: KindOf) -> Equivalent | None:
    """`git checkout [REV] -- PATH...`, `git checkout PATH...` (the first word a revision
    unless it can only be a path), `--pathspec-from-file`; with `-f`, the whole tree."""
    if read.after is not None:
        paths = [*read.before[1:], *read.after]
    elif read.before and _path_like(read.before[0]):
        paths = read.before
    else:
        paths = read.before[1:]
    if "pathspec-from-file" in read.on:
        paths = _WHOLE
    if paths:
        return _discards(paths, "`git checkout` of paths", kind_of)
    return _discards(_WHOLE, "`git checkout -f`") if "force" in read.on else None


def _restore(read: Read, kind_of: KindOf) -> Equivalent | None:
    if "staged" in read.on and "worktree" not in read.on:
        return None  # the index only
    paths = _WHOLE if "pathspec-from-file" in read.on else read.words
    return _discards(paths, "`git restore`", kind_of) if paths else None


def _checkout_index(read: Read, kind_of: KindOf) -> Equivalent | None:
    if "force" not in read.on or read.on & {"temp", "no-create"}:
        return None  # existing files kept
    whole = read.on & {"all", "stdin", "prefix"}
    paths = _WHOLE if whole else read.words
    return _discards(paths, "`git checkout-index -f`", kind_of) if paths else None


def _stash(args: Argv) -> Equivalent | None:
    """`git stash [push|save] -u|-a [PATH...]`: the untracked (with `-a`, ignored too) files
    it takes out of the working tree."""
    save = bool(args) and args[0] == "save"
    if args and args[0] in ("push", "save"):
        args = args[1:]
    elif args and not args[0].startswith("-"):
        return None  # list, show, apply, drop...
    read = read_options(args, _STASH)
    if not read.on & {"include-untracked", "all"}:
        return None  # tracked changes only: kept in the stash
    paths = _WHOLE if save or "pathspec-from-file" in read.on else read.words or _WHOLE
    where = "the whole working tree" if paths == _WHOLE else ", ".join(map(readable, paths))
    does = f"`git stash -u` takes the untracked files in {where} out of it"
    return Equivalent((("rm", "-r", "-f", "--", *paths),), does)


def _discards(paths: list[str], what: str, kind_of: KindOf = unknown_kind) -> Equivalent:
    """The `rm` of what `what` discards: `rm -f` of a path that is a file on disk now
    (`src/app.py`, `.env`, `Makefile`: its uncommitted edits overwritten, as `git mv -f`
    overwrites one), `rm -r -f` of the rest (the whole tree, a directory such as `.github`,
    a pattern, a path not on disk, a word known only as it runs): the name alone does not
    say which."""
    whole = paths == _WHOLE
    where = "the whole working tree" if whole else ", ".join(readable(p) for p in paths)
    does = f"{what} discards the uncommitted changes and files in {where}"
    files = [p for p in paths if _one_file(p, kind_of)]
    trees = [p for p in paths if not _one_file(p, kind_of)]
    forms = (("rm", "-f", "--", *files),) if files else ()
    forms += (("rm", "-r", "-f", "--", *trees),) if trees else ()
    return Equivalent(forms, does)


def _one_file(word: str, kind_of: KindOf) -> bool:
    """A path naming one file: literal, no pattern or pathspec magic, no trailing slash, and
    a file on disk."""
    if not is_literal(word) or word.startswith(":") or any(c in word for c in "*?[\\"):
        return False
    return not word.endswith("/") and kind_of(word) == "file"


def _path_like(word: str) -> bool:
    """A word taken for a path, not a branch: one no revision can be, one known only as the
    command runs, a name with a dot-led component or a file extension (`.env`, `app.py`)."""
    if only_a_path(word) or not is_literal(word):
        return True
    parts = word.split("/")
    return any(part.startswith(".") for part in parts) or bool(_EXTENSION.search(parts[-1]))
