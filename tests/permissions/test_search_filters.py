"""Ordinary searches that narrow what they read are judged with their filters: `grep -r
--include=GLOB` reads only matching names, and `find START -name GLOB | xargs CMD` hands CMD
the paths find prints, judged from the disk as `find -exec` is. A filter that lets a denied
name through still meets the rule."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

ALLOW = ["Bash(grep *)", "Bash(find *)", "Bash(xargs *)", "Bash(wc *)", "Bash(cat *)"]
RULES = {"permissions": {"deny": ["Read(**/.env)", "Read(**/*.pem)"], "allow": ALLOW}}


@pytest.mark.parametrize(
    "command",
    [
        "grep -rn --include='*.py' def .",
        "grep -r --include='*.toml' --include '*.md' x .",
        "find config -name '*.toml' | xargs wc -l",
        "find .github -name '*.yml' | xargs grep -n push",
        "find config -type f -name '*.toml' -print | xargs -r cat",
    ],
)
def test_filtered_searches_are_allowed(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "grep -rn --include='.e*' KEY .",
        "grep -r --include='*.pem' x .",
        "grep -rn --include='*.py' KEY .env",
        "find . -name '.env*' | xargs cat",
        "find . -type f | xargs grep KEY",
        "find secrets -name '*' | xargs wc -c",
    ],
)
def test_filters_that_let_a_denied_name_through_are_not_allowed(
    command: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior in ("ask", "deny"), (command, verdict.reason)
