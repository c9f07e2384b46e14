"""The forms of the package runners that fetch under another name (`bun x` is `bunx`, npm's
aliases and abbreviations as npm reads them: `npm innit`, `npm exe --package`) and `uv run
--with PKG` (its entry points load in the run): a rule naming the program does not cover the
fetched code (test_fetched_packages)."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

RULES = {
    "permissions": {
        "allow": ["Bash(bun *)", "Bash(npm *)", "Bash(uv *)"],
        "deny": ["Bash(curl *)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "bun x evilpkg",
        "bun --bun x evilpkg",
        "npm innit evilpkg",
        "npm exe --package=evilpkg -- evil",
        "npm cre evilpkg",
        "uv run --with evilpkg pytest",
        "uv run --with=evilpkg pytest",
        "uv run -w evilpkg pytest",
    ],
)
def test_fetched_under_another_name_is_code_not_seen(
    command: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior != "allow", (command, verdict.reason)
    assert "fetched" in verdict.reason, (command, verdict.reason)


@pytest.mark.parametrize(
    "command", ["npm exec -c 'echo hi'", "npm innit -y", "uv run pytest", "npm test"]
)
def test_no_package_named_is_judged_as_before(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


def test_a_rule_naming_the_fetching_form_covers_it(make_ctx: ContextFactory) -> None:
    rules = {"permissions": {"allow": ["Bash(npm innit *)", "Bash(bun x *)"]}}
    for command in ("npm innit cowsay", "bun x cowsay"):
        verdict = decide("Bash", {"command": command}, make_ctx(rules))
        assert verdict.behavior == "allow", (command, verdict.reason)
