"""hg's discards are judged as git's are, as the `rm -r -f` of what they discard (`revert
-C`/`--no-backup`, `update`/`checkout -C`/`--clean`), so `Bash(rm -rf *)` denies them; hg's
history rewriters (`strip`, `rollback`, `histedit`, `rebase`, `commit --amend`) are each
other's equivalents, so a rule on one holds for all. Allowed before under `Bash(hg *)`."""

from __future__ import annotations

import pytest

from tether.permissions import Decision

from .conftest import ContextFactory, Tree, bash

RULES = {"permissions": {"allow": ["Bash(hg *)"], "deny": ["Bash(rm -rf *)"]}}
WHOLE = "the whole working copy"


def _denied(what: str, where: str, paths: str) -> Decision:
    reason = (
        f"`hg {what}` discards the uncommitted changes and files in {where}: "
        f"`rm -r -f -- {paths}` is denied by Bash(rm -rf *)"
    )
    return Decision("deny", "Bash(rm -rf *)", reason)


@pytest.mark.parametrize(
    ("command", "what", "where", "paths"),
    [
        ("hg revert --all --no-backup", "revert --no-backup", WHOLE, "."),
        ("hg revert -aC", "revert --no-backup", WHOLE, "."),
        ("hg revert -C README.md", "revert --no-backup", "README.md", "README.md"),
        ("hg revert -r tip -C README.md", "revert --no-backup", "README.md", "README.md"),
        ("hg revert --no-b README.md", "revert --no-backup", "README.md", "README.md"),
        ("hg rever --no-backup", "revert --no-backup", WHOLE, "."),
        ("hg update --clean .", "update --clean", WHOLE, "."),
        ("hg up -C tip", "up --clean", WHOLE, "."),
        ("hg checkout -C", "checkout --clean", WHOLE, "."),
        ("hg -q co -C tip", "co --clean", WHOLE, "."),
        ("hg -R . update --cl", "update --clean", WHOLE, "."),
    ],
)
def test_hg_discards_are_the_rm_of_what_they_discard(
    command: str, what: str, where: str, paths: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    assert bash(command, make_ctx(RULES)) == _denied(what, where, paths)


@pytest.mark.parametrize(
    "command",
    [
        "hg revert README.md",
        "hg revert --all",
        "hg revert -n -C README.md",
        "hg update tip",
        "hg up -c tip",
        "hg status",
        "hg commit -m x",
    ],
)
def test_what_keeps_the_work_stays_allowed(command: str, make_ctx: ContextFactory) -> None:
    assert bash(command, make_ctx(RULES)) == Decision(
        "allow", "Bash(hg *)", "allowed by Bash(hg *)"
    )


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        ("hg rollback", "rollback"),
        ("hg histedit", "histedit"),
        ("hg rebase -d tip", "rebase"),
        ("hg commit --amend -m x", "commit --amend"),
        ("hg ci --amen", "commit --amend"),
        ("hg -q stri tip", "stri"),
    ],
)
def test_a_rule_on_one_history_rewriter_holds_for_all(
    command: str, shown: str, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(hg *)"], "deny": ["Bash(hg strip *)"]}})
    found = bash(command, ctx)
    assert (found.behavior, found.rule) == ("deny", "Bash(hg strip *)")
    assert found.reason.startswith(f"`hg {shown}` rewrites what the repository's history shows")
