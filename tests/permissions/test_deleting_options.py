"""Options with which a program deletes a tree (`pytest --basetemp DIR` empties DIR first,
`tar --remove-files` deletes what it archived): a rule allowing the program does not cover
the delete, in any spelling of the option (getopt prefixes, `python3 -m pytest`); it is asked
as a write no rule allows (allowed in acceptEdits inside the workspace)."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(pytest:*)", "Bash(python3:*)", "Bash(tar:*)", "Bash(py.test:*)"],
        "deny": ["Read(**/.env)"],
    }
}
DELETES = [
    "pytest --basetemp=config",
    "pytest -q --basetem config tests",
    "pytest --basete=config",
    "py.test --base config",
    "python3 -m pytest -x --basetemp=secrets",
    "pytest --basetemp=src/../config",
    "tar --remove-files -czf out.tgz config",
    "tar -cf out.tar --remove-files config/private",
]


@pytest.mark.parametrize("command", DELETES)
def test_a_delete_is_asked_whatever_rule_allows_the_program(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "ask", decision
    assert "deletes" in decision.reason, decision


@pytest.mark.parametrize("command", DELETES[:3])
def test_accept_edits_allows_it_inside_the_workspace(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES, mode="acceptEdits"))
    assert decision.behavior == "allow", decision


@pytest.mark.parametrize("command", ["pytest --basetemp=.", "pytest --basetemp=.claude"])
def test_the_workspace_and_protected_trees_stay_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES, mode="acceptEdits"))
    assert decision.behavior == "ask", decision


@pytest.mark.parametrize("command", ["pytest -q tests", "tar -czf out.tgz config"])
def test_plain_runs_stay_allowed(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision
