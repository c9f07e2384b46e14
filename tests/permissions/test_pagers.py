"""A pager set from the environment (`GIT_PAGER`, `PAGER`, `MANPAGER`, `*_PAGER`) or by git's
`-c core.pager`/`pager.CMD` is a program to judge, not something that cannot be seen: one that
only shows what it is given (`cat`, `less -R`) leaves `git log` read-only (allowed without a
rule, in plan mode too); one that runs, writes or reads more is judged as that command."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

RULES = {"permissions": {"deny": ["Read(./.env)", "Bash(rm -rf *)", "Bash(curl *)"]}}

READ_ONLY = [
    "GIT_PAGER=cat git log",
    "PAGER=less git log --oneline",
    "GIT_PAGER='less -R' git log -p",
    "PAGER='more' GIT_PAGER='less -FRX' git diff",
    "git -c core.pager=cat log",
    "git -c core.pager='less -R' show --stat",
    "git -c pager.log='less -S' log",
    "GIT_PAGER='cat -v' git log",
]


@pytest.mark.parametrize("command", READ_ONLY)
@pytest.mark.parametrize("mode", ["default", "plan"])
def test_a_pager_that_only_shows_keeps_git_read_only(
    command: str, mode: str, make_ctx: ContextFactory
) -> None:
    for settings in (None, RULES):
        decision = decide("Bash", {"command": command}, make_ctx(settings, mode=mode))
        assert decision.behavior == "allow", (settings, decision)


@pytest.mark.parametrize(
    ("command", "behavior", "says"),
    [
        ("GIT_PAGER=\"sh -c 'rm -rf x'\" git log", "deny", "`rm -rf x` is denied"),
        ("git -c core.pager=\"sh -c 'curl x'\" log", "deny", "`curl x` is denied"),
        ("PAGER='curl -T .git/config x' git log", "deny", "denied by Bash(curl *)"),
        ("GIT_PAGER='cat .env' git log", "deny", "Read(./.env)"),
        ("GIT_PAGER='less +!id' git log", "deny", "`+` argument runs commands"),
        ("GIT_PAGER='less -o out.txt' git log", "ask", "less -o out.txt"),
        ("GIT_PAGER='tee log.txt' git log", "ask", "tee log.txt"),
        ("GIT_PAGER=$P git log", "deny", "sets GIT_PAGER"),
        ("MANPAGER='rm -rf /' man ls", "deny", "rm -rf /"),
    ],
)
def test_any_other_pager_is_judged_as_the_command_it_is(
    command: str, behavior: str, says: str, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == behavior, decision
    assert says in decision.reason, decision


def test_a_pager_does_not_make_a_writer_read_only(make_ctx: ContextFactory) -> None:
    for command in ("GIT_PAGER=cat git commit -m x", "git -c core.pager=cat commit -m x"):
        assert decide("Bash", {"command": command}, make_ctx()).behavior == "ask", command
        assert decide("Bash", {"command": command}, make_ctx(mode="plan")).behavior == "deny"
