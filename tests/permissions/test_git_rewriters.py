"""Every way git rewrites what history shows is one class: a deny or ask rule on one of its
commands (`git rebase`, `git reset --hard`, `git commit --amend`, `git filter-branch`...)
holds for the plumbing that does the same work (`git replace`, `git commit-tree`, `git
update-ref`...) and for the porcelain that points a name elsewhere (`git branch -f`), whichever
rule allows git."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

REWRITING = [
    "git replace 4f2a91c HEAD",
    "git replace --graft HEAD~2",
    "git replace -f --edit v1.0",
    "git commit-tree -p HEAD~3 -m squashed 'HEAD^{tree}'",
    "git update-ref refs/heads/main HEAD~5",
    "git update-ref -d refs/tags/v1",
    "git update-ref --stdin",
    "git -C . update-ref HEAD 1a2b3c4",
    "git symbolic-ref HEAD refs/heads/other",
    "git hash-object -t commit -w --stdin",
    "git hash-object -w --type=tag tag.txt",
    "git filter-branch --msg-filter cat -- --all",
    "git fast-import --force",
    "git notes add -m 'reviewed' HEAD",
    "git notes remove HEAD~1",
    "git reflog expire --expire=now --all",
    "git reflog delete HEAD@{1}",
    "git branch -f main HEAD~2",
    "git branch --force topic origin/topic",
    "git tag -f v1.0 HEAD~1",
    "git switch -C main HEAD~1",
    "git checkout -B main HEAD~1",
    "git reset --soft HEAD~3",
    "git pull --rebase origin main",
    "git commit --amend --no-edit",
    "git rebase --onto main topic",
]

GUARDS = [
    ["Bash(git rebase *)"],
    ["Bash(git reset --hard *)"],
    ["Bash(git commit --amend:*)"],
    ["Bash(git filter-branch *)"],
    ["Bash(git update-ref:*)"],
]


@pytest.mark.parametrize("guard", GUARDS, ids=lambda g: g[0])
@pytest.mark.parametrize("command", REWRITING)
def test_a_rule_on_rewriting_history_holds_for_the_class(
    command: str, guard: list[str], make_ctx: ContextFactory
) -> None:
    asked = decide(
        "Bash",
        {"command": command},
        make_ctx({"permissions": {"allow": ["Bash(git *)"], "ask": guard}}),
    )
    assert asked.behavior == "ask", (command, asked.reason)
    assert guard[0] in asked.reason, asked.reason
    denied = decide(
        "Bash",
        {"command": command},
        make_ctx({"permissions": {"allow": ["Bash(git *)"], "deny": guard}}),
    )
    assert denied.behavior == "deny", (command, denied.reason)


def test_the_reason_names_what_the_command_does(make_ctx: ContextFactory) -> None:
    rules = {"permissions": {"allow": ["Bash(git *)"], "ask": ["Bash(git rebase *)"]}}
    verdict = decide("Bash", {"command": "git replace 4f2a91c HEAD"}, make_ctx(rules))
    assert verdict.reason == (
        "`git replace` rewrites what the repository's history shows, which ask rule "
        "Bash(git rebase *) covers"
    )


@pytest.mark.parametrize(
    "command",
    [
        "git replace -l",
        "git replace",
        "git symbolic-ref HEAD",
        "git symbolic-ref --short HEAD",
        "git hash-object -w notes.txt",
        "git hash-object -t commit HEAD.txt",
        "git notes list",
        "git notes show HEAD",
        "git reflog",
        "git reflog show main",
        "git branch topic",
        "git branch -d topic",
        "git tag v2.0",
        "git commit -m 'mention --amend here'",
        "git fetch origin",
        "git log --oneline",
        "git show-ref",
        "git cat-file -p HEAD",
    ],
)
def test_commands_that_rewrite_nothing_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    rules = {"permissions": {"allow": ["Bash(git *)"], "deny": ["Bash(git rebase *)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rules))
    assert verdict.behavior == "allow", (command, verdict.reason)
