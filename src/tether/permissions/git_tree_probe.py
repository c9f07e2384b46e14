"""Which files a git command that writes the working tree from commits will write, asked of
git before it runs (the default of `PermissionContext.git_tree_writes`): with the sandbox off,
`git checkout main` is asked only when one of those is a file that changes what later sessions
run or allow (`.claude/settings.json`, `.mcp.json`...), like any write of it.

Answered where git can tell from what the repository holds now:

| command | files written |
| --- | --- |
| `switch`/`checkout REV` (`-b NEW REV`) | `git diff --name-only HEAD REV` (`-f`: changed ones) |
| `switch -c NEW`, `checkout -b NEW` | none (a branch where HEAD is) |
| `checkout [REV] -- PATHS`, `restore [-s REV] PATHS` | the tracked files (REV's) below PATHS |
| `reset --hard`/`--merge`/`--keep [REV]` | `git diff --name-only REV` (REV: HEAD) |
| `merge REV...` | `git diff --name-only HEAD...REV` for each |
| `rebase UPSTREAM` | `git diff --name-only HEAD UPSTREAM` and `UPSTREAM...HEAD` |
| `cherry-pick`/`revert REV...` | the files those commits change (`git log --no-walk --name-only`) |
| any of these with a revision the repository does not hold | none (git stops first) |
| bare `pull` with no remote or upstream configured | none (there is nothing to merge) |
| `stash` (push) | the changed tracked files (`-u`: and the untracked ones) |
| `stash pop`/`apply [STASH]` | what the stash changes, its untracked files too |
| `apply`/`am PATCH...` (`< PATCH` too) | the files the patches change (`git apply --numstat`) |
| `bisect start BAD GOOD...`, `good`/`bad`/`skip` | `git diff HEAD BAD`, the range's changes |
| `worktree add PATH [COMMIT]` | every file of COMMIT (HEAD), below PATH |

A name `switch`/`checkout` would make a branch of from a remote-tracking one (`origin/NAME`),
or that `checkout` would restore as a tracked path, is not a missing revision. Anything else
(`pull` from a remote, whose commits are not fetched yet; `am --abort`; `bisect
run`; an option not listed; a range git cannot list) is not known: None, and the command is
asked as before.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from tether.permissions.git_probes import git_in, work_tree_top

MAX_WRITTEN = 2_000
"""Files one command may be known to write; past them, not known."""

_QUIET = frozenset({"-q", "--quiet", "--no-progress", "--progress"})
_CHECKOUT = _QUIET | {"--detach", "--guess", "--no-guess", "--no-track", "--ignore-other-worktrees"}
_CREATE = frozenset({"-b", "-B", "-c", "-C", "--create", "--force-create"})
_FORCE = frozenset({"-f", "--force", "--discard-changes"})
_REBASE = _QUIET | {"-i", "--interactive", "--autosquash", "--no-autosquash"}
_PULL = _QUIET | {"-r", "--rebase", "--no-rebase", "--ff", "--no-ff", "--ff-only"}


def tree_writes(directory: Path, args: tuple[str, ...]) -> tuple[str, ...] | None:
    """The files (absolute) `git ARGS` writes in the work tree found from `directory`
    (resolved), or None when that is not known (module docstring)."""
    found = work_tree_top(directory)
    if found is None:
        return None
    top = found[0]
    sub, rest = args[0], args[1:]
    if sub == "worktree":
        return _worktree(directory, rest)
    names = _names(directory, sub, rest)
    if names is None or len(names) > MAX_WRITTEN:
        return None
    base = top.as_posix().rstrip("/")
    return tuple(sorted({f"{base}/{n}" for n in names}))


def _names(cwd: Path, sub: str, rest: tuple[str, ...]) -> set[str] | None:
    if sub in ("checkout", "switch"):
        return _checkout(cwd, sub, rest)
    if sub == "restore":
        return _restore(cwd, rest)
    if sub == "reset":
        options, words = _split(rest, _QUIET | {"--hard", "--merge", "--keep"})
        if options is None or len(words) > 1:
            return None
        return _diff(cwd, words[0] if words else "HEAD")
    if sub == "merge":
        options, words = _split(rest, _QUIET | {"--ff", "--no-ff", "--ff-only", "--no-edit"})
        if options is None or not words:
            return None
        found = _union(_diff(cwd, f"HEAD...{w}") for w in words)
        # A revision the repository does not hold: git stops ("not something we can merge").
        return found if found is not None or not _missing(cwd, words) else set()
    if sub == "rebase":
        options, words = _split(rest, _REBASE)
        if options is None or len(words) != 1:
            return None
        found = _union([_diff(cwd, "HEAD", words[0]), _diff(cwd, f"{words[0]}...HEAD")])
        return found if found is not None or not _missing(cwd, words) else set()
    if sub in ("cherry-pick", "revert"):
        options, words = _split(rest, _QUIET | {"-x", "--ff", "--no-edit", "-n", "--no-commit"})
        if options is None or not words:
            return None
        if _missing(cwd, words):
            return set()
        return _listed(
            git_in(
                cwd,
                "log",
                "--no-walk",
                "-m",
                "--no-renames",
                "--format=",
                "--name-only",
                "-z",
                *words,
                "--",
            )
        )
    if sub == "stash":
        return _stash(cwd, rest)
    if sub in ("apply", "am"):
        return _patched(cwd, sub, rest)
    if sub == "bisect":
        return _bisect(cwd, rest)
    if sub == "pull":
        options, words = _split(rest, _PULL)
        if options is None or words or not _nothing_to_pull(cwd):
            return None
        return set()
    return None


_APPLY = _QUIET | {"-v", "--verbose", "--index", "--3way", "-3", "--recount", "--reject"}
_AM = _QUIET | {"-3", "--3way", "-s", "--signoff", "-k", "--keep", "--keep-cr", "-c"}
_AM_STOPS = frozenset({"--continue", "--skip", "--abort", "--quit", "-r", "--resolved"})


def _patched(cwd: Path, sub: str, rest: tuple[str, ...]) -> set[str] | None:
    """The files the patches (an mbox's too) change, as `git apply --numstat` lists them;
    given from the top of the work tree (git apply's paths are the work tree's)."""
    found = work_tree_top(cwd)
    if found is None or found[0] != cwd:
        return None
    strip = [w for w in rest if w.startswith("-p") and w[2:].isdigit()]
    flags = _APPLY if sub == "apply" else _AM
    options, patches = _split(tuple(w for w in rest if w not in strip), flags)
    if options is None or not patches:
        return None
    out = git_in(cwd, "apply", "--numstat", "-z", *strip, "--", *patches)
    if out is None:
        return None
    # `ADDED\tDELETED\tPATH\0`, or for a rename `ADDED\tDELETED\t\0FROM\0TO\0`.
    return {field.rpartition("\t")[2] for field in out.split("\0")} - {""}


def _bisect(cwd: Path, rest: tuple[str, ...]) -> set[str] | None:
    """`bisect start [BAD [GOOD...]]` and `good`/`bad`/`skip`: the commit it checks out is
    in the range still searched, so the files it writes are among those that differ from
    HEAD at its bad end or that the range's commits change."""
    verb, words = (rest[0], list(rest[1:])) if rest else ("start", [])
    if verb == "start":
        options, named = _split(tuple(w for w in words if w != "--"), _QUIET | {"--no-checkout"})
        if options is None or len(named) < 2 or "--" in words:
            return None if options is None or "--" in words else set()
        if "--no-checkout" in options:
            return set()
        bad, good = named[0], named[1:]
        return _union([_diff(cwd, "HEAD", bad), _changed(cwd, bad, *(f"^{g}" for g in good))])
    if verb not in ("good", "bad", "new", "old", "skip") or any(w.startswith("-") for w in words):
        return None
    if git_in(cwd, "rev-parse", "--verify", "-q", "refs/bisect/bad") is None:
        return set()  # no bad commit yet: git only records the mark
    range_ = ("refs/bisect/bad", "--not", "--glob=refs/bisect/good-*", *(f"^{w}" for w in words))
    return _union([_diff(cwd, "HEAD", "refs/bisect/bad"), _changed(cwd, *range_)])


def _changed(cwd: Path, *revisions: str) -> set[str] | None:
    """The files the commits of a range change."""
    return _listed(
        git_in(cwd, "log", "-m", "--no-renames", "--format=", "--name-only", "-z", *revisions, "--")
    )


def _worktree(cwd: Path, rest: tuple[str, ...]) -> tuple[str, ...] | None:
    """`worktree add [-b NEW] PATH [COMMIT]`: every file of COMMIT (HEAD), below PATH."""
    if not rest or rest[0] != "add":
        return None
    valued = frozenset({"-b", "-B", "--reason"})
    flags = _QUIET | {"-f", "--force", "--detach", "--lock", "--checkout", "--no-track", "--track"}
    options, words = _split(rest[1:], flags | {"--no-checkout"}, valued=valued)
    if options is None or not words or len(words) > 2:
        return None
    if "--no-checkout" in options:
        return ()
    commit = words[1] if len(words) > 1 else "HEAD"
    if _missing(cwd, [commit]):
        return None  # git may find it as a remote branch of that name
    names = _listed(git_in(cwd, "ls-tree", "-r", "--name-only", "--full-tree", "-z", commit))
    if names is None or len(names) > MAX_WRITTEN:
        return None
    base = (cwd / words[0]).as_posix().rstrip("/")
    return tuple(sorted(f"{base}/{n}" for n in names))


def _missing(cwd: Path, words: list[str]) -> bool:
    """Whether one of `words` names a revision this repository does not hold (git then
    stops before it writes anything: "bad revision", "invalid upstream"); ranges and
    negations are not checked. Only where git answers for HEAD: a failure of git itself
    tells nothing."""
    if git_in(cwd, "rev-parse", "--verify", "-q", "HEAD^{commit}") is None:
        return False
    return any(
        ".." not in word
        and not word.startswith(("^", "-"))
        and git_in(cwd, "rev-parse", "--verify", "-q", "--end-of-options", word + "^{commit}")
        is None
        for word in words
    )


def _stops(cwd: Path, sub: str, word: str) -> bool:
    """Whether `git switch WORD` (`checkout`) stops before it writes: WORD is no revision
    here, no remote-tracking branch of that name (git would make WORD from it), and for
    checkout no tracked path either (it would restore it)."""
    if not _missing(cwd, [word]) or word.startswith("-"):
        return False
    if git_in(cwd, "for-each-ref", "--format=%(refname)", f"refs/remotes/*/{word}") != "":
        return False
    return sub == "switch" or git_in(cwd, "ls-files", "-z", "--", word) == ""


def _nothing_to_pull(cwd: Path) -> bool:
    """Whether a bare `git pull` has nothing to merge: no remote and no branch upstream is
    configured (in any scope), so it fails before it writes the working tree."""
    listed = git_in(cwd, "config", "--list", "-z")
    if listed is None:
        return False
    keys = (entry.partition("\n")[0] for entry in listed.split("\0") if entry)
    return not any(key.startswith(("remote.", "branch.", "url.")) for key in keys)


def _checkout(cwd: Path, sub: str, rest: tuple[str, ...]) -> set[str] | None:
    if "--" in rest:
        at = rest.index("--")
        options, words = _split(rest[:at], _QUIET)
        if options is None or len(words) > 1 or sub != "checkout":
            return None
        return _tracked(cwd, words[0] if words else None, rest[at + 1 :])
    options, words = _split(rest, _CHECKOUT | _FORCE, valued=_CREATE)
    if options is None:
        return None
    if sub == "checkout" and len(words) > 1:
        return _tracked(cwd, words[0], tuple(words[1:]))  # `checkout REV PATHS`
    if not words and options & _CREATE and not options & _FORCE:
        return set()  # `switch -c NEW`: a branch where HEAD is, the tree as it is
    if len(words) > 1 or (not words and not options & _FORCE):
        return None
    written = _diff(cwd, "HEAD", words[0]) if words else set[str]()
    if written is None and not options & _FORCE and _stops(cwd, sub, words[0]):
        return set()
    if options & _FORCE:
        written = _union([written, _diff(cwd, "HEAD")])
    return written


def _restore(cwd: Path, rest: tuple[str, ...]) -> set[str] | None:
    source: str | None = None
    words: list[str] = []
    items = iter(rest)
    for word in items:
        name, eq, value = word.partition("=")
        if name in ("-s", "--source"):
            source = value if eq else next(items, None)
            if source is None:
                return None
        elif word in ("-W", "--worktree", "-q", "--quiet", "--"):
            continue
        elif word.startswith("-"):
            return None
        else:
            words.append(word)
    return _tracked(cwd, source, tuple(words)) if words else None


def _stash(cwd: Path, rest: tuple[str, ...]) -> set[str] | None:
    verb = rest[0] if rest and not rest[0].startswith("-") else "push"
    words = rest[1:] if rest and rest[0] == verb else rest
    if verb in ("pop", "apply"):
        options, named = _split(words, _QUIET | {"--index"})
        if options is None or len(named) > 1:
            return None
        if not named and git_in(cwd, "rev-parse", "--verify", "-q", "refs/stash") is None:
            return set()  # no stash: git says so and writes nothing
        stash = named[0] if named else "stash@{0}"
        changed = _diff(cwd, f"{stash}^1", stash)
        untracked = _listed(git_in(cwd, "ls-tree", "-r", "--name-only", "-z", f"{stash}^3"))
        return _union([changed, untracked or set[str]()])
    if verb != "push":
        return None
    options, named = _split(
        words,
        _QUIET | {"-u", "--include-untracked", "-k", "--keep-index"},
        valued=frozenset({"-m", "--message"}),
    )
    if options is None or named:
        return None
    written = _diff(cwd, "HEAD")
    if options & {"-u", "--include-untracked"}:
        others = git_in(cwd, "ls-files", "--others", "--exclude-standard", "--full-name", "-z")
        written = _union([written, _listed(others)])
    return written


def _split(
    words: tuple[str, ...], flags: frozenset[str], *, valued: frozenset[str] = frozenset()
) -> tuple[set[str] | None, list[str]]:
    """(the options, known; None when one is not) and the other words."""
    options: set[str] = set()
    others: list[str] = []
    items = iter(words)
    for word in items:
        if word in valued:
            options.add(word)
            if next(items, None) is None:
                return None, others
        elif word.startswith("-") and word != "-":
            if word not in flags:
                return None, others
            options.add(word)
        else:
            others.append(word)
    return options, others


def _diff(cwd: Path, *revisions: str) -> set[str] | None:
    return _listed(
        git_in(cwd, "diff", "--no-ext-diff", "--no-renames", "--name-only", "-z", *revisions, "--")
    )


def _tracked(cwd: Path, source: str | None, pathspecs: tuple[str, ...]) -> set[str] | None:
    if not pathspecs:
        return None
    if source is None:
        return _listed(git_in(cwd, "ls-files", "--full-name", "-z", "--", *pathspecs))
    return _listed(
        git_in(cwd, "ls-tree", "-r", "--name-only", "--full-name", "-z", source, "--", *pathspecs)
    )


def _listed(out: str | None) -> set[str] | None:
    return None if out is None else {name for name in out.split("\0") if name}


def _union(parts: Iterable[set[str] | None]) -> set[str] | None:
    found: set[str] = set()
    for part in parts:
        if part is None:
            return None
        found |= part
    return found
