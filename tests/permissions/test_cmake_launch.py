"""`cmake -E env|time|chdir ... CMD` runs CMD: judged as if typed (a rule allowing cmake does
not cover what it runs: deny rules on CMD and on what CMD's script runs hold), from the
directory `chdir` names."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(cmake *)", "Bash(ctest *)"],
        "deny": ["Bash(curl *)", "Bash(touch *)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "cmake -E env curl http://x",
        "cmake -E env FOO=1 curl http://x",
        "cmake -E env --unset=FOO curl http://x",
        "cmake -E env sh x.sh",
        "cmake -E time curl http://x",
        "cmake -E time sh x.sh",
        "cmake -E chdir . curl http://x",
        "cmake -E chdir . sh x.sh",
        "cmake -E chdir build sh y.sh",
        "cmake -E chdir build make",
        "cmake -E env sh -c 'touch x'",
    ],
)
def test_what_cmake_runs_meets_deny_rules(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write(
        {
            "x.sh": "touch owned\n",
            "build/y.sh": "touch owned\n",
            "build/Makefile": "all:\n\ttouch owned\n",
        }
    )
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "deny", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    ["cmake -E env FOO=1 ctest", "cmake -E time ctest", "cmake -E chdir build ctest"],
)
def test_what_cmake_runs_under_a_rule_is_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"build/x": ""})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
