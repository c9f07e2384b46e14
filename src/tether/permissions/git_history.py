"""Which git commands print file content from git's objects, and whether a file a Read rule
denies is among what they can print.

git prints the content its commits, index and stashes hold: patches (`log -p`, `show`, `diff
REV`, `format-patch`, `stash show -p`, `range-diff`, `merge-tree`), whole files (`cat-file -p`,
`--batch`, `archive`, `grep REV`, `--cached`, `config --blob=REV:PATH`), whole object sets
(`bundle create`, `fast-export`, `pack-objects`, `upload-pack`). Which file a revision or an
object name stands for cannot be told from the words (`git cat-file --batch <<< HEAD:.env`, `git
diff TREE HEAD`), so the question is put to the repository: has any of its history (commits
reachable from a ref, a reflog entry or a stash, and the index) ever held a denied path
(git_probes)? If not, these commands print nothing a Read rule denies; if so, or when that is
not known, they are asked. Printing every object git stores, unreachable ones too (`cat-file
--batch-all-objects`, `fsck --lost-found`), reaches a denied file that was only ever staged:
asked wherever a Read deny rule exists.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from tether.permissions.command_spec import names as _s
from tether.permissions.command_spec import words as _names
from tether.permissions.read_denials import read_deny_matcher
from tether.permissions.rules import RuleSet

Shows = Literal["", "history", "store"]
"""Nothing from the objects; what history holds; every object stored."""

_PATCH = _s(
    "-p", "-u", "--patch", "--patch-with-raw", "--patch-with-stat", "--cc", "-c", "--dd"
) | _s("--remerge-diff", "-W", "--function-context", "--binary", "--full-index")
_PATCH_PREFIXES = ("-U", "--unified", "--word-diff", "--color-words", "--diff-merges")
_NO_PATCH = _s("-s", "--no-patch", "--stat", "--numstat", "--shortstat", "--name-only") | _s(
    "--name-status", "--raw", "--summary", "--dirstat", "--quiet"
)
_NO_PATCH_PREFIXES = ("--stat=", "--dirstat=", "--compact-summary")

_LOG_LIKE = _names("log whatchanged reflog diff-tree diff-index diff-files")
"""Patches only when asked for (`-p`, `-U3`, `--cc`...)."""
_DIFF_LIKE = _names("diff")
"""Patches unless only names or counts are asked for (`--stat`, `--name-only`)."""
_ALWAYS = _names(
    "show format-patch range-diff merge-tree archive bundle fast-export pack-objects "
    "upload-pack upload-archive unpack-file http-backend request-pull"
)
"""Content of what history holds, whatever the options."""
_WITH_OPTIONS = {
    # Interactive forms show the patch they offer; `status -v` and `commit -v` the staged one.
    **dict.fromkeys(
        _names("add checkout reset restore stash commit"),
        _s("-p", "--patch", "-i", "--interactive", "-v", "--verbose"),
    ),
    "status": _s("-v", "--verbose", "-vv"),
    "grep": _s("--cached"),
    "am": _s("--show-current-patch"),
    "rebase": _s("--show-current-patch"),
    "notes": frozenset(),
}
_NAMES_ONLY = _names(
    "status rev-parse ls-files ls-tree describe show-ref rev-list merge-base name-rev "
    "for-each-ref count-objects version check-ignore check-attr var help branch tag remote "
    "worktree config shortlog cherry show-branch check-ref-format init init-db clone fetch pull "
    "push send-pack add commit rm mv reset checkout switch restore merge rebase cherry-pick "
    "revert clean gc prune repack maintenance sparse-checkout submodule bisect grep blame "
    "annotate am apply notes mailinfo mailsplit interpret-trailers stripspace hash-object "
    "update-index update-ref symbolic-ref write-tree commit-tree mktree mktag read-tree "
    "checkout-index merge-base pack-refs prune-packed verify-pack verify-commit verify-tag "
    "column credential replace difftool mergetool instaweb web--browse daemon filter-repo "
    "filter-branch send-email ls-remote fetch-pack index-pack fast-import bugreport "
    "diagnose merge-file merge-index credential-store shell remote-ext remote-fd fsck rerere "
    "multi-pack-index commit-graph"
)
"""Print no content from the objects, with the options of `_WITH_OPTIONS` absent."""


def shows_objects(sub: str, rest: tuple[str, ...]) -> Shows:
    """What `git SUB REST` prints of what git's objects hold. REST's words are taken as
    written; an option that may print a patch counts wherever it stands."""
    words = rest[: rest.index("--")] if "--" in rest else rest
    if sub == "cat-file":
        return _cat_file(words)
    if sub == "fsck" and any(w in ("--lost-found",) for w in words):
        return "store"
    if sub == "stash" and words[:1] == ("show",):
        return "history"
    if sub == "config":  # `config --blob=HEAD:.env -l` prints the blob's `key=value` lines
        return "history" if config_blob(words) is not None else ""
    patch = any(w in _PATCH or w.startswith(_PATCH_PREFIXES) for w in words)
    if sub == "show" and not patch and _commits_only(words):
        # `show --stat HEAD`: names and counts of commits (a blob or tree would be printed
        # whole whatever the options, so each word must name a commit).
        return ""
    if sub in _ALWAYS:
        return "history"
    if sub in _LOG_LIKE:
        # `-G REGEX`/`-S TEXT` pick the commits whose patches match: an oracle on what
        # every version of a file held, one guess at a time, as good as the patch itself.
        pickaxe = any(w.startswith(("-G", "-S")) for w in words)
        return "history" if patch or pickaxe or (sub == "reflog" and "-p" in words) else ""
    if sub == "merge-file" and any(
        len(w) > 3 and "--object-id".startswith(w) for w in words
    ):  # its operands are blobs (`HEAD:.env`), printed merged with `-p` or written
        return "history"
    if sub in _DIFF_LIKE:
        names = any(w in _NO_PATCH or w.startswith(_NO_PATCH_PREFIXES) for w in words)
        return "" if names and not patch else "history"
    if sub == "stash":
        # `list` takes log's options (`stash list -p`); `push`, `pop`, `drop` print no content.
        return "history" if patch or any(w in _WITH_OPTIONS[sub] for w in words) else ""
    options = _WITH_OPTIONS.get(sub)
    if options is not None and any(w in options for w in words):
        return "history"
    if sub in _NAMES_ONLY:
        return ""
    return "history"  # a command tether has no entry for may print anything it holds


_COMMIT = re.compile(
    r"(?:HEAD|@|ORIG_HEAD|FETCH_HEAD|MERGE_HEAD)?(?:[~^][0-9]*)*|.*(?:[~^][0-9]*|\^\{commit\})"
)
"""A revision that is a commit: HEAD and its kin, or any revision peeled to a commit by a
`~N`, `^N` or `^{commit}` suffix (a tag may name a blob; `main~0` is a commit)."""


def _commits_only(words: tuple[str, ...]) -> bool:
    """`show` with only names or counts asked for (`--stat`, `--name-only`), of commits."""
    names = any(w in _NO_PATCH or w.startswith(_NO_PATCH_PREFIXES) for w in words)
    revisions = [w for w in words if not w.startswith("-")]
    return names and all(
        ":" not in w and all(_COMMIT.fullmatch(end) for end in w.split("..") if end)
        for w in revisions
    )


def shown_paths(sub: str, rest: tuple[str, ...]) -> tuple[str, ...]:
    """The paths a command that prints what history holds is limited to: its pathspecs after
    `--` (`git log -p -- src/app.py`), or the paths of `REV:PATH` words (`git show
    HEAD:README.md`); () when it is not limited (a wildcard or magic pathspec, `..`,
    `--follow`, which follows renames, `--full-diff`, or other words)."""
    if any(w in ("--follow", "--full-diff") for w in rest):
        return ()
    if "--" in rest:
        before, specs = rest[: rest.index("--")], rest[rest.index("--") + 1 :]
        if any(":" in w for w in before):
            return ()  # `show HEAD:.env -- x` prints the blob whatever the pathspec
    elif sub == "config":
        blob = config_blob(rest) or ""
        if not _in_revision(blob):
            return ()
        specs = (blob.partition(":")[2],)
    elif sub == "show":
        revisions = [w for w in rest if not w.startswith("-")]
        if not revisions or not all(_in_revision(w) for w in revisions):
            return ()
        specs = tuple(w.partition(":")[2] for w in revisions)
    else:
        return ()
    cleaned = tuple(_plain_path(w) for w in specs)
    return cleaned if specs and all(cleaned) else ()


_CONFIG_BLOB = re.compile(r"--bl(?:ob?)?")
"""`git config --blob` and the prefixes git's option parser takes for it (`--blo`)."""


def config_blob(words: tuple[str, ...]) -> str | None:
    """The `REV:PATH` or object `git config --blob` reads its settings from, or None."""
    for i, word in enumerate(words):
        name, eq, value = word.partition("=")
        if _CONFIG_BLOB.fullmatch(name):
            return value if eq else words[i + 1] if i + 1 < len(words) else ""
    return None


def _in_revision(word: str) -> bool:
    """`REV:PATH` with a path (not `:N:PATH` stages or `:/text` searches)."""
    rev, colon, path = word.partition(":")
    return bool(colon and rev and path) and not rev.startswith("-")


def _plain_path(word: str) -> str:
    """A pathspec as a plain relative path ("" when it may be more: a wildcard, magic, `..`,
    an absolute path, a path from the top)."""
    word = word.removeprefix("./").rstrip("/")
    parts = word.split("/")
    if not word or word.startswith(("/", ":")) or any(c in word for c in "*?[\\"):
        return ""
    if any(part in ("", ".", "..") for part in parts):
        return ""
    return word


def limited(denied: tuple[str, ...], paths: tuple[str, ...]) -> tuple[str, ...]:
    """The denied entries (`/abs/path (rule)`) a command limited to `paths` may print: those
    that are, or lie below, a directory ending in one of them, from any directory (so the
    repository's top and the directory git runs in both count)."""
    if not paths:
        return denied
    kept: list[str] = []
    for entry in denied:
        path = entry.rpartition(" (")[0]
        if any(("/" + p + "/") in (path + "/") for p in paths):
            kept.append(entry)
    return tuple(kept)


def _cat_file(words: tuple[str, ...]) -> Shows:
    """`-t`, `-s`, `-e` and `--batch-check` print types and sizes; anything else, content:
    `-p`, `TYPE OBJECT`, `--batch`, `--batch-command`, `--textconv`, `--filters`."""
    options = [w for w in words if w.startswith("-")]
    positionals = [w for w in words if not w.startswith("-")]
    content = len(positionals) >= 2 or any(
        w in ("-p", "--textconv", "--filters")
        or (w.startswith("--batch") and not w.startswith(("--batch-check", "--batch-all")))
        for w in options
    )
    if not content:
        return ""
    return "store" if "--batch-all-objects" in options else "history"


_matched: dict[tuple[int, int], tuple[object, object, tuple[str, ...]]] = {}


def denied_in_history(
    paths: tuple[str, ...], rules: RuleSet, *, workspace: Path, home: Path
) -> tuple[str, ...]:
    """The paths (absolute) a Read deny rule covers, with the rule: `path (rule)`. Kept for
    the same paths and rules, so that a session matches a history once."""
    key = (id(paths), id(rules))
    found = _matched.get(key)
    if found is not None and found[0] is paths and found[1] is rules:
        return found[2]
    match, _, may_match = read_deny_matcher(rules, workspace=workspace, home=home)
    denied = tuple(_each(paths, match, may_match))
    if len(_matched) > 64:
        _matched.clear()
    _matched[key] = (paths, rules, denied)
    return denied


def _each(
    paths: tuple[str, ...],
    match: Callable[[str], str | None],
    may_match: Callable[[str], bool] | None,
) -> list[str]:
    found: list[str] = []
    for path in paths:
        if may_match is not None and not may_match(path.rpartition("/")[2]):
            continue
        rule = match(path)
        if rule is not None:
            found.append(f"{path} ({rule})")
    return found
