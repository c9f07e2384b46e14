"""Plan mode runs what only reads: whether a command is read-only is a property of the command,
not of the rule that allowed it."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

RULES = {
    "permissions": {
        "allow": [
            "Bash(ls *)",
            "Bash(git log *)",
            "Bash(wc *)",
            "Bash(head *)",
            "Bash(npm *)",
            "Bash(sort *)",
            "Bash(find *)",
            "Bash(tee *)",
            "Bash(./report.sh *)",
        ]
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "ls -la src",
        "git log --oneline -n 5",
        "wc -l README.md src/app.py",
        "head -n 3 README.md | wc -c",
        "timeout 5 ls src",
    ],
)
def test_read_only_commands_an_allow_rule_covers_run_in_plan_mode(
    command: str, make_ctx: ContextFactory
) -> None:
    assert decide("Bash", {"command": command}, make_ctx(RULES, mode="plan")).behavior == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "npm test",
        "ls > listing.txt",
        "sort -o sorted.txt README.md",
        "find . -name '*.pyc' -delete",
        "head README.md | tee copy.md",
        "./report.sh --week",
        "git log --output=log.txt",
    ],
)
def test_what_writes_or_runs_programs_stays_denied_whatever_allows_it(
    command: str, make_ctx: ContextFactory
) -> None:
    assert decide("Bash", {"command": command}, make_ctx(RULES, mode="plan")).behavior == "deny"


def test_the_same_commands_without_a_rule_keep_their_built_in_verdict(
    make_ctx: ContextFactory,
) -> None:
    ctx = make_ctx(mode="plan")
    assert decide("Bash", {"command": "ls -la src"}, ctx).behavior == "allow"
    assert decide("Bash", {"command": "npm test"}, ctx).behavior == "deny"
