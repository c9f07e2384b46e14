"""Every way git rewrites what a repository's history shows, as data: a deny or ask rule on one
history-rewriting command (`git rebase`, `git reset --hard`, `git commit --amend`, `git
filter-branch`, `git update-ref`...) holds for each of them. The plumbing does the same work
as the porcelain the rules name: `git commit-tree` makes the commit, `git update-ref` or
`git replace` puts it where a branch or a commit was (`git replace HEAD~1 X` shows X in every
log in place of HEAD~1), `git fast-import` writes commits and moves branches, `git notes`
adds to what `git log` shows, `git reflog expire` drops the way back; `git branch -f`, `git
tag -f`, `git checkout -B`, `git switch -C` and `git worktree add -B` point a name at another
commit, as a forced refspec does (`git fetch . +HEAD~1:main`); `git -c pull.rebase=true pull`
rebases. Options are read as git reads them: any prefix of a long one (`commit --am` is
`--amend`; an ambiguous prefix, which git refuses, as the one feared) and bundled short ones
(`hash-object -wt commit`).

The Bash policy matches such a command's rules as each history-rewriting command with its
words (`rewriting_equivalent`), as git_senders does for `git push`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tether.permissions.command_spec import names as _s
from tether.permissions.git_names import subcommand_at
from tether.permissions.shell_words import is_literal

Argv = tuple[str, ...]


@dataclass(frozen=True)
class Rewrites:
    """When a subcommand rewrites what history shows."""

    verbs: frozenset[str] | None = None
    """Only with one of these first words (`notes add`); None: any words."""
    needs: frozenset[str] = frozenset()
    """Only with one of these options (`branch -f`); short ones also in a cluster (`-fc`)."""
    unless: frozenset[str] = frozenset()
    """Not with one of these (`replace -l` lists)."""
    needs_words: int = 0
    """Only with at least this many words after it (`symbolic-ref HEAD REF` writes; `HEAD`
    alone reads)."""
    or_with: frozenset[str] = frozenset()
    """...or with one of these options (`symbolic-ref -d HEAD`)."""
    objects: bool = False
    """Only when it writes a commit, tag or tree (`hash-object -w -t commit`), not a blob."""
    exact: frozenset[str] = frozenset()
    """Its own long options that begin a needed one, taken whole (`switch --force` is no
    `--force-create`)."""


_TYPES = frozenset({"blob", "commit", "tag", "tree"})
_ANY = Rewrites()
REWRITERS: Mapping[str, Rewrites] = {
    "rebase": _ANY,
    "filter-branch": _ANY,
    "filter-repo": _ANY,
    "commit-tree": _ANY,
    "fast-import": _ANY,
    "update-ref": _ANY,
    "replace": Rewrites(
        unless=_s("-l", "--list", "--format"), needs_words=1, or_with=_s("--convert-graft-file")
    ),
    "symbolic-ref": Rewrites(needs_words=2, or_with=_s("-d", "--delete")),
    "hash-object": Rewrites(needs=_s("-w"), objects=True),
    "notes": Rewrites(verbs=_s("add", "append", "copy", "edit", "merge", "remove", "prune")),
    "reflog": Rewrites(verbs=_s("expire", "delete", "drop")),
    "commit": Rewrites(needs=_s("--amend")),
    # With a revision: the branch moves (`reset --soft HEAD~2`); without, HEAD stays.
    "reset": Rewrites(needs=_s("--hard", "--soft", "--mixed", "--keep", "--merge"), needs_words=1),
    "pull": Rewrites(needs=_s("-r", "--rebase")),
    "branch": Rewrites(needs=_s("-f", "--force", "-D", "-M", "-C")),
    "tag": Rewrites(needs=_s("-f", "--force")),
    "checkout": Rewrites(needs=_s("-B")),
    "switch": Rewrites(needs=_s("-C", "--force-create"), exact=_s("--force")),
    "worktree": Rewrites(verbs=_s("add"), needs=_s("-B")),
}
"""git subcommands that rewrite what history shows, and when they do."""

FORMS: tuple[Argv, ...] = (
    ("rebase",),
    ("reset", "--hard"),
    ("commit", "--amend"),
    ("filter-branch",),
    ("filter-repo",),
    ("replace",),
    ("update-ref",),
    ("commit-tree",),
)
"""The history-rewriting commands rules name, each tried with the command's own words."""


def rewriting_equivalent(argv: Argv) -> tuple[tuple[Argv, ...], str] | None:
    """`git [OPTIONS] SUB ARGS` where SUB rewrites what history shows: each history-rewriting
    command with ARGS (`git rebase ARGS`, `git update-ref ARGS`...) for the deny and ask rules
    on them, and SUB's words for the reason; None for any other command."""
    i = subcommand_at(argv)
    if i >= len(argv) or not is_literal(argv[i]):
        return None
    found = REWRITERS.get(argv[i])
    rest = argv[i + 1 :]
    if not (
        (found is not None and _rewrites(found, rest))
        or (argv[i] == "pull" and rebases_by_config(argv[:i]))
        or (argv[i] in ("fetch", "pull") and forces_a_ref(rest))
    ):
        return None
    forms = tuple((*argv[:i], *form, *rest) for form in FORMS)
    return forms, f"git {argv[i]}"


def _rewrites(found: Rewrites, rest: Argv) -> bool:
    words = [word for word in rest if not word.startswith("-") and word not in _TYPES]
    if found.verbs is not None and not (words[:1] and words[0] in found.verbs):
        return False
    if found.needs and not any(_has(rest, option, found.exact) for option in found.needs):
        return False
    if any(_has(rest, option, whole=True) for option in found.unless):
        return False
    if found.objects and not _object_type(rest):
        return False
    return len(words) >= found.needs_words or any(_has(rest, o, found.exact) for o in found.or_with)


def _object_type(rest: Argv) -> bool:
    """Whether `hash-object` is told to write a commit, tag or tree (or anything, unchecked:
    `--literally`)."""
    for i, word in enumerate(rest):
        value = word.partition("=")[2] if word.startswith("--type=") else None
        if word in ("-t", "--type") and i + 1 < len(rest):
            value = rest[i + 1]
        elif _cluster(word) and "t" in word:
            # `-t commit`, `-tcommit`, and bundled: `-wt commit`, `-wtcommit`.
            attached = word[word.index("t") + 1 :]
            value = attached or (rest[i + 1] if i + 1 < len(rest) else None)
        if value is not None and (not is_literal(value) or value != "blob"):
            return True
    return "--literally" in rest


def _has(
    rest: Argv, option: str, exact: frozenset[str] = frozenset(), *, whole: bool = False
) -> bool:
    """Whether `option` is among the words before `--`: a short one in a cluster too, a long
    one also as a prefix git takes for it (`--am` is `--amend`; a prefix of several options
    git refuses, so it is taken as the one feared), unless the prefix is an option of its own
    (`exact`), or `whole`."""
    for word in rest:
        if word == "--":
            return False
        name = word.partition("=")[0]
        if name == option:
            return True
        prefix = len(name) > 2 and name.startswith("--") and option.startswith(name)
        if prefix and not whole and name not in exact:
            return True
        if len(option) == 2 and _cluster(word) and option[1] in word[1:]:
            return True
    return False


def _cluster(word: str) -> bool:
    return word[:1] == "-" and word[1:2] not in ("-", "")


def rebases_by_config(options: Argv) -> bool:
    """Whether git's own options set `pull.rebase` or `branch.NAME.rebase` to anything but
    false (`git -c pull.rebase=true pull` rebases as `pull --rebase` does)."""
    for i, word in enumerate(options):
        setting = None
        if word == "-c" and i + 1 < len(options):
            setting = options[i + 1]
        elif word.startswith("-c") and len(word) > 2:
            setting = word[2:]
        elif word.startswith("--config-env="):
            setting = word.partition("=")[2] + "=?"
        if setting is None:
            continue
        key, _, value = setting.partition("=")
        key = key.lower()
        is_rebase = key == "pull.rebase" or (key.startswith("branch.") and key.endswith(".rebase"))
        if is_rebase and (not is_literal(value) or value.lower() not in _FALSE):
            return True
    return False


_FALSE = frozenset({"false", "no", "off", "0"})


def forces_a_ref(rest: Argv) -> bool:
    """Whether `fetch`/`pull` is told to force a ref of this repository to another commit: a
    refspec with a destination, forced by `+` or `-f`/`--force` (`fetch . +HEAD~1:main`
    moves main back as `branch -f` does)."""
    forced = _has(rest, "--force") or _has(rest, "-f")
    refspecs = [word for word in rest if not word.startswith("-")][1:]
    for word in refspecs:
        source, colon, destination = word.partition(":")
        if colon and destination and (forced or source.startswith("+")):
            return True
    return False
