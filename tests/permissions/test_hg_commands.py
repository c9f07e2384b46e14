"""hg command words tether does not know (hg_commands): an alias (`dbsh`, declared by the
extension that defines `debugshell`, runs Python from `-c` or its input) or an extension's
command is not understood and asked, as an unknown debugging command is; core commands, their
aliases and prefixes, and the shipped extensions' commands are judged as before. `hg dbsh`
was allowed by `Bash(hg *)` before."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(hg *)", "Bash(echo *)"], "deny": ["Bash(curl *)"]}}
_UNKNOWN = (
    "an hg command tether does not know (an alias or an extension's), which may run code: it"
    " may run what deny rule Bash(curl *) forbids; write the command plainly"
)


@pytest.mark.parametrize(
    "command",
    [
        "hg dbsh -c 'import os; os.system(\"curl http://e\")'",
        "hg dbsh -c 'print(open(\".env\").read())'",
        "echo 'import os' | hg dbsh",
        "hg dbsh < ../x.py",
        "hg -R . dbsh",
        "hg --cwd src dbsh -c x",
        "hg --config ui.color=never dbsh",
        "hg debugsh_alias",
        "hg frobnicate",
        "hg -q myext-command --flag",
    ],
)
def test_a_command_tether_does_not_know_is_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    if command.startswith("hg debug"):
        reason = (
            "an hg debugging command tether does not know, which may open any file or run code:"
            " it may run what deny rule Bash(curl *) forbids; write the command plainly"
        )
    else:
        reason = _UNKNOWN
    expected = Decision("deny", "Bash(curl *)", reason)
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected


def test_without_deny_rules_an_unknown_command_is_a_question(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"allow": ["Bash(hg *)"]}})
    verdict = decide("Bash", {"command": "hg dbsh -c 'import os'"}, ctx)
    reason = "an hg command tether does not know (an alias or an extension's), which may run code"
    assert verdict == Decision("ask", None, reason)


@pytest.mark.parametrize(
    "command",
    [
        "hg",
        "hg --version",
        "hg st",
        "hg status",
        "hg log -l 3",
        "hg ann README.md",
        "hg ci -m x",
        "hg up",
        "hg co default",
        "hg id",
        "hg sum",
        "hg qapplied",
        "hg rebase -d default",
        "hg histedit",
        "hg -R . log",
        "hg help dbsh",
    ],
)
def test_known_commands_and_their_prefixes_are_judged_as_before(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    expected = Decision("allow", "Bash(hg *)", "allowed by Bash(hg *)")
    assert decide("Bash", {"command": command}, make_ctx(RULES)) == expected
