"""What hg records into its history is read, as `git add` reads it: `hg add`, `hg addremove`
and `hg commit -A` (also `amend`, `record`) take every untracked file below their operands,
the whole working copy when none, and a commit records the files it names. A denied file
among them is denied, a tree that may hold one is asked (all were allowed by `Bash(hg *)`,
and `.env` went into the history)."""

from __future__ import annotations

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(hg *)"], "deny": ["Read(./.env)", "Read(./secrets/**)"]}}


@pytest.mark.parametrize(
    ("command", "denied", "rule"),
    [
        ("hg add .env", ".env", "Read(./.env)"),
        ("hg add src/app.py .env", ".env", "Read(./.env)"),
        ("hg add -n .env", ".env", "Read(./.env)"),
        ("hg add secrets", "secrets", "Read(./secrets/**)"),
        ("hg addremove .env", ".env", "Read(./.env)"),
        ("hg addr -s .env", ".env", "Read(./.env)"),
        ("hg commit -m x .env", ".env", "Read(./.env)"),
        ("hg ci -A -m x .env", ".env", "Read(./.env)"),
        ("hg commit --addremove secrets -m x", "secrets", "Read(./secrets/**)"),
        ("hg -q commit -I '*' -m wip .env", ".env", "Read(./.env)"),
    ],
)
def test_recording_a_denied_file_is_denied(
    command: str, denied: str, rule: str, make_ctx: ContextFactory, tree: Tree
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    reason = f"reading {tree.ws / denied} is denied by {rule}"
    assert verdict == Decision("deny", rule, reason), command


@pytest.mark.parametrize(
    "command",
    [
        "hg add",
        "hg add .",
        "hg add -I '.e*' .",
        "hg addremove",
        "hg addr",
        "hg commit -A -m x",
        "hg commit -Am x",
        "hg commit -qAm x",
        "hg commit --addr -m x",
        "hg commit --addremove=1 -m x",
        "hg ci -A -m x",
        "hg record -A",
        "hg amend -A",
        "hg -R . commit -A -m x",
        "hg commit -m x -A",
    ],
)
def test_recording_the_whole_working_copy_is_asked(
    command: str, make_ctx: ContextFactory, tree: Tree
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    reason = f"searches {tree.ws}, which may hold files deny rule Read(./.env) covers"
    assert verdict == Decision("ask", "Read(./.env)", reason), command


@pytest.mark.parametrize(
    "command",
    [
        "hg commit -m x",
        "hg commit -m A",
        "hg commit -mA",
        "hg commit -u A -m x",
        "hg commit --amend -m x",
        "hg add src/app.py",
        "hg add src",
        "hg ci -m 'fix A' src/app.py",
        "hg status",
    ],
)
def test_recording_what_no_rule_denies_stays_allowed(
    command: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict == Decision("allow", "Bash(hg *)", "allowed by Bash(hg *)"), command
