"""git commands that write the working tree from commits, patches, stashes or another
repository: files their words do not name (`git checkout main` writes whatever the branch
holds), as data. git_policy.py reads a command with it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tether.permissions.command_spec import names as _s
from tether.permissions.command_spec import words as _names


@dataclass(frozen=True)
class TreeWrites:
    """When a subcommand writes the working tree from commits, patches or another repository
    (files tether cannot name: whatever the commit holds, `.claude/settings.json` included)."""

    needs: frozenset[str] = frozenset()
    """Only with one of these options (`reset --hard`)."""
    unless: frozenset[str] = frozenset()
    """Not with one of these (`apply --check`, `clean -n`)..."""
    despite: frozenset[str] = frozenset()
    """...unless one of these is there too (`apply --stat --apply`)."""
    needs_positional: bool = False
    """Only when a word follows (`checkout main`; `checkout -b new` stays where it is)..."""
    or_with: frozenset[str] = frozenset()
    """...or one of these options is there (`checkout -f`: back to what HEAD holds)."""
    verbs: frozenset[str] | None = None
    """Only for these first words ("" for none: bare `git stash`)."""
    quiet_verbs: frozenset[str] = frozenset()
    """Not for these first words (`bisect log`)."""
    valued: frozenset[str] = frozenset()
    """Options taking a separate value, so that it is not taken for a word that follows."""
    does: str = "writes the files a commit or patch holds"
    """What it writes, for the question."""


_STOPS = _s("--quit", "--show-current-patch", "--edit-todo")
_FORCE = _s("-f", "--force", "--discard-changes", "-m", "--merge")
_STRATEGY = TreeWrites(does="merges files into the working tree (a merge strategy)")
TREE_WRITERS: Mapping[str, TreeWrites] = {
    "checkout": TreeWrites(
        needs_positional=True, or_with=_FORCE, valued=_s("-b", "-B", "--orphan", "--conflict")
    ),
    "switch": TreeWrites(
        needs_positional=True,
        or_with=_FORCE,
        valued=_s("-c", "-C", "--create", "--force-create", "--orphan", "--conflict"),
    ),
    # `--staged` alone puts back the index, no file of the working tree.
    "restore": TreeWrites(unless=_s("-S", "--staged"), despite=_s("-W", "--worktree")),
    "reset": TreeWrites(needs=_s("--hard", "--merge", "--keep")),
    "read-tree": TreeWrites(needs=_s("-u")),
    **dict.fromkeys(("merge", "rebase", "cherry-pick", "revert", "am"), TreeWrites(unless=_STOPS)),
    # What it merges is fetched first: which files that writes is known only after (`git
    # fetch` then `git merge` is judged on the commits fetched).
    "pull": TreeWrites(
        unless=_STOPS,
        does="writes the files of commits it has not fetched yet (git fetch, then git merge, "
        "is judged on what was fetched)",
    ),
    "apply": TreeWrites(
        unless=_s("--check", "--stat", "--numstat", "--summary", "--cached"),
        despite=_s("--apply", "--index"),
    ),
    "stash": TreeWrites(
        verbs=_s("", "push", "save", "pop", "apply", "branch"),
        valued=_s("-m", "--message"),
        does="writes the files a stash or the last commit holds",
    ),
    "bisect": TreeWrites(quiet_verbs=_s("log", "visualize", "view", "terms", "help")),
    "sparse-checkout": TreeWrites(verbs=_s("init", "set", "add", "reapply", "disable")),
    "submodule": TreeWrites(
        verbs=_s("update", "add", "deinit", "absorbgitdirs"),
        does="writes the submodules' files, as their commits hold them",
    ),
    "worktree": TreeWrites(
        verbs=_s("add", "move", "remove"), does="writes a working tree of a commit's files"
    ),
    "clean": TreeWrites(
        unless=_s("-n", "--dry-run"),
        valued=_s("-e", "--exclude"),
        does="deletes the untracked files it finds (local settings among them)",
    ),
    "clone": TreeWrites(does="writes the files of the repository it clones"),
    # The plumbing and scripts under merge, checkout, submodule and am.
    **dict.fromkeys(
        _names(
            "merge-one-file merge-octopus merge-resolve merge-recursive merge-recursive-ours "
            "merge-recursive-theirs merge-subtree"
        ),
        _STRATEGY,
    ),
    "checkout--worker": TreeWrites(does="writes the files it is sent on its input"),
    # Every file the index holds (`-a`) or its input names, as the index holds it: a file
    # staged with other text than the tree's is written back over it.
    "checkout-index": TreeWrites(
        needs=_s("-a", "--all", "--stdin"),
        valued=_s("--prefix", "--stage"),
        does="writes the files the index holds",
    ),
    "submodule--helper": TreeWrites(does="writes the submodules' files"),
    "quiltimport": TreeWrites(does="applies a series of patches to the working tree"),
    # Its filters run on each commit, and the branch checked out is read back into the
    # working tree once rewritten (`read-tree -u -m HEAD`).
    "filter-branch": TreeWrites(does="writes the files of the branch it rewrites"),
}
"""Subcommands that write files of the working tree that their words do not name: a branch's,
a patch's, a stash's, a new clone's. Which files is not known, so with the sandbox off they
are writes of files that may change what later sessions run (asked whatever the rules say)."""
