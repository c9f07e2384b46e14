"""git reads an option however it is spelled: any unambiguous prefix of a long option
(`commit --am` is `--amend`, `pull --reb` is `--rebase`), short options bundled (`hash-object
-wt commit` is `-w -t commit`), settings given on its command line (`-c pull.rebase=true pull`
rebases), and a forced refspec moves a branch of this repository (`fetch . +HEAD~1:main`). A
deny rule on rewriting history holds for every spelling, in every mode."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, assert_denied_in_every_mode

RULES = {"permissions": {"allow": ["Bash(git *)"], "deny": ["Bash(git rebase *)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "git commit --am -m x",
        "git commit --amen --no-edit",
        "git commit --a -m x",
        "git pull --reb origin main",
        "git pull --rebase=merges",
        "git hash-object -wt commit c.txt",
        "git hash-object -wtcommit c.txt",
        "git hash-object -tw tree t.txt",
        "git -c pull.rebase=true pull",
        "git -c pull.rebase=merges pull . old",
        "git -c branch.main.rebase=true pull",
        "git -c pull.rebase=$MODE pull",
        "git fetch . +refs/tags/old:refs/heads/main --update-head-ok",
        "git fetch . +HEAD~1:refs/heads/x",
        "git fetch origin +main:main",
        "git fetch b.bundle +main:main",
        "git fetch --force origin main:main",
        "git fetch -f . HEAD~1:refs/heads/main",
        "git pull origin +main:main",
        "git replace --convert-graft-file",
        "git replace --convert",
        "git worktree add -B main ../wt HEAD~1",
        "git switch --force-c main HEAD~1",
        "git branch --forc main HEAD~1",
        "git reset --har HEAD~1",
    ],
)
def test_every_spelling_of_a_rewriter_is_denied(command: str, make_ctx: ContextFactory) -> None:
    assert_denied_in_every_mode(command, make_ctx, RULES)


@pytest.mark.parametrize(
    "command",
    [
        "git commit --all -m x",
        "git commit --allow-empty -m x",
        "git pull --ff-only",
        "git -c pull.rebase=false pull",
        "git -c pull.rebase=FALSE pull",
        "git hash-object -wt blob notes.txt",
        "git hash-object -w notes.txt",
        "git fetch origin main:refs/remotes/origin/main",
        "git fetch origin",
        "git fetch --force origin",
        "git fetch -f https://example.invalid/r.git main",
        "git switch --force main",
        "git worktree add ../wt topic",
        "git replace --list",
    ],
)
def test_spellings_that_rewrite_nothing_stay_allowed(
    command: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior != "deny", (command, verdict.reason)
