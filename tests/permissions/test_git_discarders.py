"""git's commands that discard work (uncommitted edits, untracked files, whole directories)
meet the deny and ask rules on `rm`, as `git rm` and `git clean` do: each case is first run
with real git in a throwaway repository, to show it loses the work it is judged for."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

MODES = ("default", "acceptEdits", "bypassPermissions")
ALLOWED = ["Bash(git *)"]
DENY_RM_RF = {"permissions": {"allow": ALLOWED, "deny": ["Bash(rm -rf *)"]}}
_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
}

# Each spelling, with the work it loses: an edit of a tracked file (`edit`), an untracked
# file (`new`), or the files of a second worktree or submodule (`dir`).
DISCARDERS = [
    ("git checkout -f", "edit"),
    ("git checkout --force main", "edit"),
    ("git checkout -- .", "edit"),
    ("git checkout .", "edit"),
    ("git checkout HEAD -- a.txt", "edit"),
    ("git checkout a.txt", "edit"),
    ("git checkout --theirs -q -- .", "edit"),
    ("git checkout --pathspec-from-file=list", "edit"),
    ("git switch --discard-changes main", "edit"),
    ("git switch -f main", "edit"),
    ("git switch --disc main", "edit"),
    ("git restore .", "edit"),
    ("git restore --worktree a.txt", "edit"),
    ("git restore -SW .", "edit"),
    ("git restore --staged --worktree --source=HEAD a.txt", "edit"),
    ("git reset --hard", "edit"),
    ("git reset --soft --hard", "edit"),
    ("git reset --ha HEAD", "edit"),
    ("git read-tree -u --reset HEAD", "edit"),
    ("git read-tree -u --reset 4b825dc642cb6eb9a060e54bf8d69288fbee4904", "tracked"),
    ("git checkout-index -f -a", "edit"),
    ("git checkout-index --force -- a.txt", "edit"),
    ("git stash -u", "new"),
    ("git stash --include-untracked", "new"),
    ("git stash push --all", "new"),
    ("git stash save -u wip", "new"),
    ("git stash push -q --include-unt -- new.txt", "new"),
    ("git sparse-checkout set nothing", "sub"),
    ("git worktree remove -f ../wt", "dir"),
    ("git worktree remove --force ../wt", "dir"),
    ("git mv -f b.txt a.txt", "edit"),
]
_OVERWRITES = frozenset(  # one file: `rm -f`, not `rm -rf`
    {
        "git mv -f b.txt a.txt",
        "git checkout HEAD -- a.txt",
        "git checkout a.txt",
        "git restore --worktree a.txt",
        "git restore --staged --worktree --source=HEAD a.txt",
        "git checkout-index --force -- a.txt",
    }
)


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, env=_ENV, check=True, capture_output=True)


def _repo(tmp: Path) -> Path:
    repo = tmp / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("committed\n")
    (repo / "b.txt").write_text("other\n")
    (repo / "list").write_text("a.txt\n")
    (repo / "d").mkdir()
    (repo / "d" / "c.txt").write_text("in a directory\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "init")
    _git(repo, "worktree", "add", "-q", "../wt")
    (tmp / "wt" / "untracked.txt").write_text("work\n")
    (repo / "a.txt").write_text("uncommitted edit\n")
    (repo / "new.txt").write_text("untracked\n")
    return repo


def _lost(tmp: Path, repo: Path, kind: str) -> bool:
    if kind == "edit":
        return (repo / "a.txt").read_text() != "uncommitted edit\n"
    if kind == "new":
        return not (repo / "new.txt").exists()
    if kind == "tracked":
        return not (repo / "b.txt").exists()
    if kind == "sub":
        return not (repo / "d" / "c.txt").exists()
    return not (tmp / "wt").exists()


@pytest.mark.parametrize(("command", "loses"), DISCARDERS)
def test_git_really_discards(command: str, loses: str, tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    subprocess.run(command, shell=True, cwd=repo, env=_ENV, capture_output=True, check=False)
    assert _lost(tmp_path, repo, loses), command


@pytest.mark.parametrize(("command", "loses"), DISCARDERS)
def test_git_discarding_work_meets_rm_rf(
    command: str, loses: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    rule = "Bash(rm *)" if command in _OVERWRITES else "Bash(rm -rf *)"
    rules = {"permissions": {"allow": ALLOWED, "deny": [rule]}}
    for mode in MODES:
        verdict = decide("Bash", {"command": command}, make_ctx(rules, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)
        assert rule in verdict.reason, verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "git submodule deinit -f --all",
        "git submodule --quiet deinit --force sub",
        "git -C . checkout -f",
        "git -c core.autocrlf=true restore src",
        "git reset --hard HEAD~1",
        "git read-tree --empty -u -m HEAD",
        'git checkout "$REV"',
        "git checkout -- src",
        "git checkout HEAD -- 'src/*.py'",
        "git restore src/ README.md",
    ],
)
def test_more_discarding_spellings_meet_rm_rf(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(DENY_RM_RF, mode="bypassPermissions"))
    assert verdict.behavior == "deny", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "git checkout main",
        "git checkout -b feature/z",
        "git checkout -b x v1.2.3",
        "git switch -c feature/y",
        "git switch main",
        "git restore --staged README.md",
        "git reset --soft HEAD~1",
        "git reset --hard --keep",
        "git read-tree HEAD",
        "git read-tree -u -n --reset HEAD",
        "git checkout-index -a",
        "git stash list",
        "git stash",
        "git stash -u --no-include-untracked",
        "git stash pop",
        "git worktree list",
        "git sparse-checkout list",
        "git mv a.txt c.txt",
        "git mv -f -n b.txt a.txt",
    ],
)
def test_git_keeping_work_is_not_rm(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    """A branch switch git refuses when it would lose work, an index-only restore, a dry run,
    a stash of tracked changes (kept in the stash): no `rm`."""
    verdict = decide("Bash", {"command": command}, make_ctx(DENY_RM_RF, mode="bypassPermissions"))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "git checkout .env",
        "git checkout src/app.py",
        "git checkout -- src/app.py",
        "git checkout HEAD~1 -- README.md .env.example",
        "git checkout -- Makefile",
        "git restore conf.d/site LICENSE",
        "git -C src checkout -- app.py",
        "git -C config -C . restore app.toml",
        "cd src && git checkout -- app.py",
        "git restore src/app.py",
        "git restore --source=HEAD -- config/app.toml",
        "git checkout-index -f -- src/app.py",
    ],
)
def test_discarding_the_edits_of_named_files_is_rm_f_not_rm_rf(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """A routine undo of one file's edits loses that file's changes, as `rm -f FILE` would,
    and nothing below a directory: a deny on `rm` holds for it, one on `rm -rf` does not.
    A file is what is on disk, whatever its name (`Makefile`, `conf.d/site`)."""
    _more_files(tree.ws)
    rm_rf = decide("Bash", {"command": command}, make_ctx(DENY_RM_RF, mode="bypassPermissions"))
    assert rm_rf.behavior == "allow", (command, rm_rf.reason)
    rm = {"permissions": {"allow": ALLOWED, "deny": ["Bash(rm *)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rm, mode="bypassPermissions"))
    assert verdict.behavior == "deny", (command, verdict.reason)
    assert "rm -f -- " in verdict.reason, verdict.reason


def _more_files(ws: Path) -> None:
    (ws / "Makefile").write_text("all:\n")
    (ws / "LICENSE").write_text("license\n")
    (ws / "conf.d").mkdir()
    (ws / "conf.d" / "site").write_text("x\n")
    (ws / "tests.py").mkdir()


@pytest.mark.parametrize(
    "command",
    [
        "git checkout -- .github",
        "git restore conf.d",
        "git checkout HEAD -- tests.py",
        "git checkout -- config",
        "git restore gone.py",
        "git checkout -- src/app.py/",
        "git -C .github checkout -- workflows",
        "git -C src checkout -- ../config",
        'git -C "$D" checkout -- app.py',
        "git --work-tree=/tmp checkout -- README.md",
        "GIT_WORK_TREE=/tmp git checkout -- README.md",
        "rm -f x && mkdir x && git checkout -- x",
        "git checkout -- homelink",
    ],
)
def test_discarding_a_directory_or_unknown_path_is_rm_rf(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """A directory on disk is discarded whole whatever its name looks like (`.github`,
    `conf.d`, a directory named `tests.py`); a path not on disk, outside the workspace, or
    one the line may change before git runs is judged on the safe side: `rm -r -f`."""
    _more_files(tree.ws)
    verdict = decide("Bash", {"command": command}, make_ctx(DENY_RM_RF, mode="bypassPermissions"))
    assert verdict.behavior == "deny", (command, verdict.reason)
    assert "Bash(rm -rf *)" in verdict.reason, verdict.reason
