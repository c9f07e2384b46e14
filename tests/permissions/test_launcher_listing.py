"""tox's listing and parallel options are understood, not taken for what launches a command
(an unknown option there is asked, and denied where a deny rule may match): `tox -l` is
allowed as tox is, and `tox -p` with or without its optional value still shows what runs."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

RULES = {"permissions": {"allow": ["Bash(tox *)"], "deny": ["Bash(curl *)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "tox -la",
        "tox -qa",
        "tox --listenvs-all",
        "tox --listenvs -v",
        "tox -p -e py311,lint",
        "tox --parallel all -e lint",
        "tox -p3 -e py",
        "tox --parallel=auto --parallel-no-spinner",
        "tox --showconfig -e py",
    ],
)
def test_listing_and_parallel_options_are_allowed(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    ["tox -p exec -- curl -I x", "tox --parallel 2 exec -e py -- curl x", "tox -l e -- curl x"],
)
def test_what_tox_launches_after_them_is_still_judged(
    command: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "deny", (command, verdict.reason)
