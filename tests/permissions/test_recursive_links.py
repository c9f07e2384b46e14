"""A recursive reader given a symbolic link to a directory searches what the link leads to,
as `cat LINK/FILE` reads it: a Read rule that denies the file through the link holds against
`grep -r`, `rg`, `du -a`, `tar c`, `cp -r`, `rsync -a`, `zip -r` of the link."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

ALLOW = ["Bash(grep *)", "Bash(rg *)", "Bash(du *)", "Bash(tar *)", "Bash(cat *)"]
ALLOW += ["Bash(cp *)", "Bash(rsync *)", "Bash(zip *)"]
RULES = {"permissions": {"deny": ["Read(**/credentials)"], "allow": ALLOW}}


def test_the_file_through_the_link_is_denied(make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": "cat homelink/.aws/credentials"}, make_ctx(RULES))
    assert verdict.behavior == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "grep -r aws homelink",
        "grep -rl aws homelink/",
        "grep -r --include=credentials aws homelink/.aws",
        "rg aws homelink",
        "du -a homelink",
        "tar cf build/h.tar homelink/",
        "cp -r homelink build/h",
        "rsync -a homelink/ build/h",
        "zip -r build/h.zip homelink",
    ],
)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
def test_a_recursive_read_through_the_link_is_not_allowed(
    command: str, mode: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
    assert verdict.behavior in ("ask", "deny"), (command, verdict.reason)
    assert "Read(**/credentials)" in verdict.reason


def test_a_recursive_read_of_a_clean_directory_stays_allowed(make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": "grep -rn def src/app.py config"}, make_ctx(RULES))
    assert verdict.behavior == "allow", verdict.reason
