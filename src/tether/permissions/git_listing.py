"""Which files git's staging and search commands read, as git itself would list them: `git add
.` reads the tracked files and the untracked ones no ignore rule covers, `git commit -a`,
`git stash` and `git grep` only the tracked ones. A file a Read rule denies that git ignores
and does not track (`.env` in `.gitignore`) is never read by them, so the engine asks git
(`git ls-files`, git_probes.files_git_reads) rather than searching the directory.

Only options known to leave that choice alone are taken (git abbreviates long options, so an
unknown word may be `--forc` or `--no-ind`): any other, paths from the input or a file, and
words that are not literals leave the question to the recursive read (`()` here).
"""

from __future__ import annotations

from tether.permissions.command_spec import names as _s
from tether.permissions.shell_words import is_literal

_FLAGS = {
    "add": _s("-A", "--all", "-u", "--update", "-v", "--verbose", "-n", "--dry-run")
    | _s("--no-all", "--ignore-removal", "-N", "--intent-to-add", "--refresh", "-q"),
    "commit": _s("-a", "--all", "-q", "--quiet", "--amend", "--no-edit", "-s", "--signoff")
    | _s("--no-verify", "-n", "--allow-empty", "--allow-empty-message", "-o", "--only")
    | _s("-i", "--include", "-e", "--edit", "--no-post-rewrite", "--reset-author"),
    "stash": _s("push", "save", "-q", "--quiet", "-k", "--keep-index", "--no-keep-index")
    | _s("-u", "--include-untracked", "--staged", "-S"),
}
_VALUED = {
    "add": frozenset[str](),
    "commit": _s("-m", "--message", "--author", "--date", "-C", "--reuse-message"),
    "stash": _s("-m", "--message"),
}
_UNTRACKED = {"add": None, "commit": frozenset[str](), "stash": _s("-u", "--include-untracked")}
_GREP_FLAGS = (
    _s("-n", "--line-number", "-i", "--ignore-case", "-w", "--word-regexp", "-l")
    | _s("--files-with-matches", "-L", "--files-without-match", "-c", "--count")
    | _s("-E", "--extended-regexp", "-F", "--fixed-strings", "-G", "-P", "-v")
    | _s("--perl-regexp", "--basic-regexp", "--invert-match", "-h", "-H", "-o")
    | _s("--only-matching", "-q", "--quiet", "--heading", "--break", "--column")
    | _s("--full-name", "-I", "-a", "--text", "-p", "--show-function", "-W")
    | _s("--function-context", "--color", "--no-color", "--untracked", "-r")
    | _s("--recursive", "--null", "-z", "--all-match", "--and", "--or", "--not")
    | _s("--cached")
)
_GREP_VALUED = _s("-e", "-A", "-B", "-C", "-m", "--max-count", "--max-depth", "--threads")


def git_listing(sub: str, rest: tuple[str, ...]) -> tuple[str, ...]:
    """("tracked" or "visible", PATHSPEC...) for a staging command git lists the files of,
    its pathspecs as written; `()` when it may read ignored files or its words are not all
    known."""
    flags = _FLAGS.get(sub)
    positionals = _known(rest, flags, _VALUED[sub]) if flags is not None else None
    if positionals is None:
        return ()
    if sub == "stash":
        verb = positionals[:1]
        if verb and verb[0] not in ("push", "save"):
            return ()
        positionals = [] if verb == ["save"] else positionals[1:] if verb else positionals
    if sub == "add":
        tracked = any(w in ("-u", "--update") for w in rest)
    else:
        untracked = _UNTRACKED[sub]
        tracked = not (untracked and any(w in untracked for w in rest))
    # Without pathspecs: `add -A`, `commit -a`, `stash` take the whole tree; plain `add`
    # nothing (git then only warns).
    specs = positionals or [":/"]
    return ("tracked" if tracked else "visible", *specs)


def grep_listing(rest: tuple[str, ...]) -> tuple[str, ...]:
    """The same for `git grep` of the working tree: tracked files (and, with `--untracked`,
    those no ignore rule covers) below its pathspecs (after the pattern, unless `-e` gives
    it)."""
    positionals = _known(rest, _GREP_FLAGS, _GREP_VALUED)
    if positionals is None:
        return ()
    # The pattern is the first word unless `-e` gives it; taking a word for a pathspec that
    # is the pattern only lists more files, so any short option with an `e` counts.
    given = any("e" in w for w in rest if w.startswith("-") and not w.startswith("--"))
    if not given:
        positionals = positionals[1:]
    kind = "visible" if "--untracked" in rest else "tracked"
    return (kind, *(positionals or ["."]))


def _known(
    rest: tuple[str, ...], flags: frozenset[str], valued: frozenset[str]
) -> list[str] | None:
    """The words that are no options, when every word is a literal and every option one of
    `flags` or `valued` (its value skipped), short bundles letter by letter; words after
    `--` are paths. None otherwise."""
    found: list[str] = []
    items = iter(rest)
    for word in items:
        if not is_literal(word):
            return None
        if word == "--":
            after = list(items)
            return found + after if all(is_literal(w) for w in after) else None
        if not word.startswith("-") or word == "-":
            found.append(word)
            continue
        name = word.partition("=")[0]
        if name in valued:
            if "=" not in word:
                next(items, None)
            continue
        if word in flags:
            continue
        if word.startswith("--") or not _bundle(word, flags, valued):
            return None
        if f"-{word[-1]}" in valued and all(f"-{c}" not in valued for c in word[1:-1]):
            next(items, None)  # `-am MSG`: the message
    return found


def _bundle(word: str, flags: frozenset[str], valued: frozenset[str]) -> bool:
    """`-am MSG`-style bundles: flags, then at most a valued letter whose value follows."""
    for letter in word[1:]:
        if f"-{letter}" in valued:
            return True  # the rest of the word (or the next) is its value
        if f"-{letter}" not in flags:
            return False
    return True
