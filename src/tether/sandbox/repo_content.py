"""What a git repository held before the session: content a command checks out from it is the
repository's own, not the command's.

The sweep (`start_sweep.py`) and the protected paths stop a command from planting a file that
runs later, outside the sandbox (`.envrc`, `.vscode/tasks.json`). A `git checkout`, `git stash
pop` or `git merge` of what the repository already had is not planting: the user chose those
commits before the session, and would get the same files checking them out outside. So:

- a file the sweep would move aside is kept when its content is, at its path, that of a blob
  in the history of a ref the repository had at the session's first command (`own`);
- or the clean merge of what two such refs hold there over their merge base's
  (`repo_merges.py`: a `git merge` of two branches that both changed it);
- or that of a repository outside every writable place that it names as a remote by a local
  path (a clone's `origin`, a remote pulled from): no command can have written that history;
- a protected path (read-only, or a placeholder while missing) where a branch, tag or stash
  the repository had differs from its `HEAD` is left to the sweep (`unguarded`), so that the
  checkout of that branch can write it; what else a command writes there is moved aside.

Refs are read from the files (`HEAD`, `refs/`, `packed-refs`), once, at the first command;
git is run only when a sweep has something to judge, with nothing of the repository's config
that runs programs in effect. The object store is the commands' to write, so what git's log
says a path held is a claim: kept is only what the objects, read back and hashed from the
recorded ids down, confirm (`verified_objects.py`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from tether.sandbox.made_refs import made_by_commands, remember
from tether.sandbox.nofollow import read_regular_file
from tether.sandbox.protected import Protected, common_dirs, gitdir_pointer
from tether.sandbox.repo_merges import MergeBases, clean_merge
from tether.sandbox.repo_reads import (
    MAX_FILE,
    Repo,
    blob_id,
    blobs_at,
    differing,
    open_git_dir,
    open_repo,
    refs_of,
    remote_urls,
    within,
    work_tree_of,
)
from tether.sandbox.verified_objects import (
    MAX_COMMITS_TRIED,
    MAX_TIPS_TRIED,
    holding,
    is_sha256,
    reachable,
)

MAX_JUDGED = 1_000
"""Files judged per sweep at most: a checkout brings a few start-up files, a command that made
thousands is not checking anything out."""
_MAX_MERGED = 16
"""Files per sweep and repository tried as a merge of two tips at most."""
_MAX_SOURCES = 8
"""Remotes looked at per repository at most."""


def _nothing_swept(_relative: str) -> bool:
    return False


class RepoHistory:
    """A session's record of its repositories' refs at the first command."""

    def __init__(
        self, *, swept: Callable[[str], bool] = _nothing_swept, made_dir: Path | None = None
    ) -> None:
        self.repos: dict[str, Repo] = {}
        """By work tree."""
        self.recorded = False
        self.blobs: dict[tuple[str, str], dict[str, list[str]]] = {}
        """Per (git directory, path): what git's log says the path held (`"<kind> <blob
        id>"`) and in which commits; a claim only, until `verified_objects` confirms it."""
        self.commits: dict[tuple[str, bool], frozenset[str]] = {}
        """Per (git directory, whether with their ancestors): the commits of its recorded
        tips, each read back and hashed (`verified_objects.reachable`)."""
        self.confirmed: dict[tuple[str, str, str], bool] = {}
        """Per (git directory, path, blob): whether the history truly held it there."""
        self.varying: dict[str, dict[str, bool]] = {}
        """Per work tree, per protected path: whether a recorded ref differs from `HEAD`
        there."""
        self.writable: tuple[str, ...] = ()
        self.swept = swept
        """Whether the sweep judges the files at a path (relative to a work tree): only such a
        protected path is ever left unguarded (a hooks directory `core.hooksPath` names is
        not)."""
        self.made_dir = made_dir
        """Where the ids commands moved refs to are kept past the session (`made_refs.py`),
        under tether's home; None: nowhere (the session's own commands' refs are still left
        out)."""
        self.first: set[str] = set()
        """The (common) git directories there at the first command, by real path."""
        self.made: dict[str, set[str]] = {}
        """Per repository a command made: the ids already kept as made."""
        self.bases = MergeBases()

    def record(
        self, work_trees: list[Path], writable: tuple[Path, ...], first: Iterable[Path] = ()
    ) -> None:
        """The session's first command starts: the refs of the repositories of `work_trees`
        now are what the repositories held before, but for those an earlier session's
        commands made (`made_refs.py`). `first`: every git directory there now (bare ones
        too): the repositories the session's commands did not make."""
        if self.recorded:
            return
        self.recorded = True
        self.writable = tuple(os.fspath(w) for w in writable)
        for git_dir in first:
            repo = open_git_dir(git_dir)
            if repo is not None:
                self.first.add(os.path.realpath(repo.git_dir))
        for tree in work_trees:
            repo = open_repo(tree)
            if repo is not None:
                made, base = made_by_commands(self.made_dir, repo.git_dir)
                untrusted = made.difference(base)
                tips = [t for t in repo.tips if t not in untrusted]
                repo.tips = tuple(dict.fromkeys([*tips, *base]))
                self.repos[os.fspath(tree)] = repo

    def made_repos(self, git_dirs: Iterable[Path]) -> None:
        """A command ended with `git_dirs` in the writable places: a repository among them
        that was not there at the first command is the commands' whole, so every id its refs
        are at is kept as made (`made_refs.py`): a later session, which finds it there at its
        first command, trusts none of its history."""
        for git_dir in git_dirs:
            repo = open_git_dir(git_dir)
            if repo is None:
                continue
            key = os.path.realpath(repo.git_dir)
            if key in self.first:
                continue
            ids = set(refs_of(repo.git_dir).values())
            if ids - self.made.get(key, set()):
                remember(self.made_dir, repo.git_dir, sorted(ids), ())
                self.made[key] = ids

    def commons(self) -> list[Path]:
        """The recorded repositories' (common) git directories."""
        return [repo.git_dir for repo in self.repos.values()]

    def moved(self) -> None:
        """A command ended: the ids the recorded repositories' refs moved to since the last
        command are the commands', never history to a later session (`made_refs.py`)."""
        for repo in self.repos.values():
            refs = refs_of(repo.git_dir)
            made = [i for name, i in refs.items() if repo.refs.get(name) != i]
            repo.refs = refs
            trusted = set(repo.tips)
            if made := [i for i in dict.fromkeys(made) if i not in trusted]:
                remember(self.made_dir, repo.git_dir, made, repo.tips)

    def own(self, paths: list[str]) -> set[str]:
        """Those of `paths` (files) that hold, at their path, content of the history of a
        repository before the session, or of a remote outside every writable place. At most
        `MAX_JUDGED` are judged (the rest are not the repository's); git runs once per
        repository for all of them."""
        trees: dict[str, list[tuple[str, str]]] = {}
        for path in paths[:MAX_JUDGED]:
            found = work_tree_of(path)
            if found is not None:
                trees.setdefault(found[0], []).append((path, found[1]))
        own: set[str] = set()
        for tree, files in trees.items():
            recorded = self.repos.get(tree) or self._linked(tree)
            for repo in [*([recorded] if recorded else []), *self._sources(Path(tree))]:
                left = [(p, r) for p, r in files if p not in own]
                key = os.fspath(repo.git_dir)
                unknown = [r for _, r in left if (key, r) not in self.blobs]
                if unknown:
                    history = blobs_at(repo, unknown)
                    for relative in unknown:
                        self.blobs[(key, relative)] = history.get(relative, {})
                held = [
                    (path, relative, blob)
                    for path, relative in left
                    if self.blobs[(key, relative)]
                    and (blob := blob_id(path, repo.git_dir)) in self.blobs[(key, relative)]
                ]
                true = self._confirmed(repo, [(r, b) for _, r, b in held])
                own.update(path for path, relative, blob in held if (relative, blob) in true)
            if recorded is not None:
                own.update(self._merged(recorded, [(p, r) for p, r in files if p not in own]))
        return own

    def _merged(self, repo: Repo, files: list[tuple[str, str]]) -> list[str]:
        """Those of `files` (path, relative) that hold the clean merge of two recorded tips
        at their path (`repo_merges.py`)."""
        found: list[str] = []
        key, sha256 = os.fspath(repo.git_dir), is_sha256(repo.git_dir)
        for path, relative in files[:_MAX_MERGED]:
            data = None if os.path.islink(path) else read_regular_file(Path(path), MAX_FILE + 1)
            if data is None or len(data) > MAX_FILE:
                continue
            if (key, True) not in self.commits:
                self.commits[(key, True)] = reachable(repo.git_dir, repo.tips, sha256)
            commits = self.commits[(key, True)]
            if clean_merge(repo.git_dir, repo.tips, commits, relative, data, self.bases, sha256):
                found.append(path)
        return found

    def _linked(self, tree: str) -> Repo | None:
        """The recorded repository a linked worktree made since (`git worktree add`) is of:
        its `.git` file names a git directory whose common directory is that repository's."""
        pointed = gitdir_pointer(Path(tree) / ".git")
        if pointed is None:
            return None
        common = os.path.realpath(next(iter(common_dirs(pointed)), pointed))
        found = [r for r in self.repos.values() if os.path.realpath(r.git_dir) == common]
        return found[0] if found else None

    def _confirmed(self, repo: Repo, held: list[tuple[str, str]]) -> set[tuple[str, str]]:
        """Those (path, blob) of `held`, which git's log says the history had, that it
        truly had: read back from the object store and hashed (`verified_objects.py`), as a
        command can have forged what git read."""
        key = os.fspath(repo.git_dir)
        sha256 = is_sha256(repo.git_dir)
        unknown = [h for h in dict.fromkeys(held) if (key, *h) not in self.confirmed]
        for ancestors in (False, True):
            # The tips first (a checkout, merge or stash pop brings what one holds), the
            # whole history only for what none holds (`git restore --source=HEAD~3`).
            if not unknown:
                break
            if (key, ancestors) not in self.commits:
                tips = repo.tips if ancestors else repo.tips[:MAX_TIPS_TRIED]
                found = reachable(repo.git_dir, tips, sha256, ancestors=ancestors)
                self.commits[(key, ancestors)] = found
            commits = self.commits[(key, ancestors)]
            claims = [
                (commit, relative, blob)
                for relative, blob in unknown
                for commit in (
                    self.blobs[(key, relative)][blob][:MAX_COMMITS_TRIED]
                    if ancestors
                    else sorted(commits)
                )
            ]
            true = holding(repo.git_dir, claims, commits, sha256)
            for relative, blob in unknown:
                self.confirmed[(key, relative, blob)] = any(
                    (c, r, b) in true for c, r, b in claims if (r, b) == (relative, blob)
                )
            unknown = [h for h in unknown if not self.confirmed[(key, *h)]]
        return {h for h in held if self.confirmed[(key, *h)]}

    def guarded(self, found: list[tuple[Path, Protected]]) -> list[tuple[Path, Protected]]:
        """`found` but for what is `unguarded`."""
        left = self.unguarded(found)
        return [(path, entry) for path, entry in found if os.fspath(path) not in left]

    def unguarded(self, found: list[tuple[Path, Protected]]) -> set[str]:
        """The protected paths of `found` (absolute) in a recorded repository's work tree
        where one of its refs differs from its `HEAD`: a checkout of that ref writes them."""
        by_tree: dict[str, list[str]] = {}
        for path, _entry in found:
            text = os.fspath(path)
            for tree in self.repos:
                relative = text[len(tree) + 1 :]
                if text.startswith(tree + os.sep) and self.swept(relative):
                    by_tree.setdefault(tree, []).append(relative)
        left: set[str] = set()
        for tree, relatives in by_tree.items():
            known = self.varying.setdefault(tree, {})
            new = [r for r in dict.fromkeys(relatives) if r not in known]
            if new:
                changed = differing(self.repos[tree], new)
                for relative in new:
                    prefix = relative + "/"
                    known[relative] = any(c == relative or c.startswith(prefix) for c in changed)
            left.update(os.path.join(tree, r) for r in relatives if known[r])
        return left

    def _sources(self, tree: Path) -> list[Repo]:
        """The repositories the one at `tree` was cloned, fetched or pulled from that no
        command can have written: its remotes' URLs that are local paths outside every writable
        place (or a repository recorded before the session)."""
        config = read_regular_file(tree / ".git" / "config", 1_000_000)
        if config is None:
            return []
        found: list[Repo] = []
        for url in remote_urls(config.decode("utf-8", "replace")):
            url = url.removeprefix("file://")
            if not url.startswith("/"):
                continue
            source = os.path.normpath(url)
            recorded = self.repos.get(source) or self.repos.get(source.removesuffix("/.git"))
            if recorded is not None:
                found.append(recorded)
                continue
            real = os.path.realpath(source)
            if any(within(p, w) for p in (source, real) for w in self.writable):
                continue
            git_dir = Path(real) / ".git" if (Path(real) / ".git").exists() else Path(real)
            if (repo := open_git_dir(git_dir)) is not None:
                found.append(repo)
        return found[:_MAX_SOURCES]
