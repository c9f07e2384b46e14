"""pip run as a module is pip, in every spelling Python's command line takes (`-mpip`, `-Im
pip`, `-Impip`, `-m pip.__main__`): pip's checks and the rules naming pip apply to it as they
do to `pip` typed, and an install `pip` may do is one `python3 -m pip` may do."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

ALLOWING = {
    "permissions": {
        "allow": ["Bash(python3 *)", "Bash(pip *)"],
        "deny": ["Bash(curl *)"],
    }
}
SPELLINGS = [
    "python3 -m pip",
    "python3 -mpip",
    "python3 -Im pip",
    "python3 -Impip",
    "python3 -I -m pip",
    "python3 -m pip.__main__",
]


@pytest.mark.parametrize("python", SPELLINGS)
def test_pip_as_a_module_gets_pips_decision(
    python: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx(ALLOWING)
    for args in (
        "install requests",
        "list",
        f"install {tree.outside}/pkg",
        f"install --target {tree.outside}/t requests",
        "install --user requests",
    ):
        typed = decide("Bash", {"command": f"pip {args}"}, ctx).behavior
        run = decide("Bash", {"command": f"{python} {args}"}, ctx)
        assert run.behavior == typed, (python, args, run.reason)
    assert decide("Bash", {"command": f"{python} install requests"}, ctx).behavior == "allow"
    outside = decide("Bash", {"command": f"{python} install {tree.outside}/pkg"}, ctx)
    assert outside.behavior != "allow", (python, outside.reason)


@pytest.mark.parametrize("python", SPELLINGS)
def test_rules_naming_pip_hold_for_pip_as_a_module(python: str, make_ctx: ContextFactory) -> None:
    interpreter_only = make_ctx({"permissions": {"allow": ["Bash(python3 *)"]}})
    verdict = decide("Bash", {"command": f"{python} install requests"}, interpreter_only)
    assert verdict.behavior == "ask", (python, verdict.reason)
    denying = make_ctx(
        {"permissions": {"allow": ["Bash(python3 *)"], "deny": ["Bash(pip install *)"]}}
    )
    verdict = decide("Bash", {"command": f"{python} install requests"}, denying)
    assert verdict.behavior == "deny", (python, verdict.reason)
