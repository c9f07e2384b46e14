"""git commands that write the working tree from patches, a bisection or a new worktree are
judged as checkout and cherry-pick are: on the files git says they write (git_tree_probe),
not asked for whatever a commit may hold. `git apply p.diff`, `git am < p.mbox`, `git bisect
start`, `git worktree add wt` pass where `git cherry-pick x` passes; a patch or commit that
writes `.claude/settings.json` is still asked, and a worktree outside the workspace is a write
outside it, as `cp -r` there is."""

from __future__ import annotations

import subprocess

import pytest

from tether.permissions import Mode, decide

from .conftest import ContextFactory, Tree

PATCH = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-one\n+two\n"
SETTINGS_PATCH = "--- /dev/null\n+++ b/.claude/settings.json\n@@ -0,0 +1 @@\n+{}\n"
MAIL = (
    "From 0123456789abcdef Mon Sep 17 00:00:00 2001\nFrom: Dev <dev@example.com>\n"
    "Subject: [PATCH] two\n\n---\ndiff --git a/notes.txt b/notes.txt\n" + PATCH
)


@pytest.fixture
def repository(tree: Tree) -> Tree:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tree.ws), *args], check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "dev@example.com")
    git("config", "user.name", "Dev")
    (tree.ws / ".gitignore").write_text(".env\nsecrets/\n*.diff\n*.mbox\n")
    (tree.ws / "notes.txt").write_text("one\n")
    git("add", ".gitignore", "notes.txt", "src/app.py", "README.md")
    git("commit", "-qm", "one")
    (tree.ws / "README.md").write_text("# project, again\n")
    git("commit", "-qam", "two")
    git("branch", "feature")
    (tree.ws / "change.diff").write_text(PATCH)
    (tree.ws / "settings.diff").write_text(SETTINGS_PATCH)
    (tree.ws / "change.mbox").write_text(MAIL)
    return tree


PASSING = [
    "git cherry-pick feature",
    "git apply change.diff",
    "git apply -p1 --index change.diff",
    "git apply < change.diff",
    "git am change.mbox",
    "git am -3 < change.mbox",
    "git bisect start",
    "git bisect start HEAD HEAD~1",
    "git worktree add wt",
    "git worktree add -b topic wt2 HEAD~1",
    "git switch -c topic feature",
    "git restore --staged notes.txt",
]


@pytest.mark.parametrize("mode", ["default", "acceptEdits"])
@pytest.mark.parametrize("command", PASSING)
def test_patches_and_new_trees_are_judged_on_what_they_write(
    command: str, mode: Mode, repository: Tree, make_ctx: ContextFactory
) -> None:
    """Decided as `git cherry-pick feature` is in the same mode and rules: allowed by a rule
    allowing git; with none, the question is about the command, not about what a commit may
    hold."""
    allowed = decide(
        "Bash",
        {"command": command},
        make_ctx({"permissions": {"allow": ["Bash(git *)"]}}, mode=mode),
    )
    assert allowed.behavior == "allow", (command, allowed.reason)
    bare = decide("Bash", {"command": command}, make_ctx(mode=mode))
    assert "no rule allows" in bare.reason, (command, bare.reason)


@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("git apply settings.diff", ".claude/settings.json"),
        ("git apply < settings.diff", ".claude/settings.json"),
        ("git worktree add ../elsewhere", "outside the workspace"),
        ("git bisect run make", ""),
        ("git am --abort", ""),
    ],
)
def test_what_may_write_more_is_still_asked(
    command: str, says: str, repository: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide(
        "Bash", {"command": command}, make_ctx({"permissions": {"allow": ["Bash(git *)"]}})
    )
    assert verdict.behavior == "ask", (command, verdict.reason)
    assert says in verdict.reason, verdict.reason
