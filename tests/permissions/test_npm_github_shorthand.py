"""npm-package-arg reads `user/repo` (with `#ref`, or after `NAME@`) as a GitHub repository
(hosted-git-info's shorthand, tried before a folder): `npm install a/b` fetches and runs
code from there as `npm install github:a/b` does, and is asked the same way (it was allowed
as a folder in the workspace). Scoped names, folders led by `.` and deeper paths stay what
they are."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

ALLOW = ["Bash(npm install *)", "Bash(npm i *)", "Bash(yarn add *)", "Bash(pnpm add *)"]
RULES = {"permissions": {"allow": ALLOW, "deny": ["Read(./.env)"]}}


@pytest.mark.parametrize(
    "command",
    [
        "npm install a/b",
        "npm install attacker/payload#main",
        "npm i x@a/b",
        "npm i x@a/b#semver:^1",
        "npm install src/lib",
        "npm install --no-audit a/b",
        "yarn add a/b",
        "pnpm add a/b#main",
        "npm install github:a/b",
        "npm install gitlab:a/b",
        "npm install bitbucket:a/b",
        "npm install git+ssh://git@example.com/a/b.git",
        "npm install https://example.com/p.tgz",
    ],
)
def test_a_git_host_shorthand_is_a_fetch(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)
    assert "fetched with the scripts it runs from a URL or a git host" in verdict.reason


@pytest.mark.parametrize(
    "command",
    ["npm install lodash", "npm install @scope/pkg", "npm install @scope/pkg@1.2", "npm i ./src"],
)
def test_registry_names_and_folders_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
