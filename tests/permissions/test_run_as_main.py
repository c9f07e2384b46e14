"""`python3 -m runpy MOD ARGS` runs MOD as `python3 -m MOD ARGS` does: every reader of a
module's command line (code it runs, files it loads, framework shells, linters) reads MOD,
however many runpy or profiler layers start it."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(python3:*)"],
        "deny": ["Bash(wget:*)", "Read(**/.env)", "Edit(.git/**)"],
    }
}
RUN = 'import subprocess; subprocess.run(["wget", "-q", "x"])'


@pytest.mark.parametrize(
    "command",
    [
        f"python3 -m runpy timeit -s'{RUN}' pass",
        f"python3 -mrunpy timeit --setup='{RUN}'",
        f"python3 -m runpy runpy timeit -vs'{RUN}'",
        f"python3 -m cProfile -m runpy timeit -s'{RUN}'",
        f"python3 -m trace --count --module runpy timeit --se='{RUN}'",
        "python3 -m runpy pdb -c '!import os; os.system(\"wget x\")' x.py",
        f"python3 -m runpy code <<< '{RUN}'",
        "python3 -m runpy timeit -s 'print(open(\".env\").read())'",
    ],
)
def test_the_module_runpy_runs_meets_the_deny_rules(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "deny", decision


@pytest.mark.parametrize(
    "command",
    [
        f"python3 -m runpy django shell -c '{RUN}'",
        f"python3 -m runpy pylint --init-hook='{RUN}' src",
    ],
)
def test_code_given_to_a_module_runpy_runs_is_judged_as_code(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "deny", decision


@pytest.mark.parametrize(
    "command",
    ["python3 -m runpy timeit 'sum(range(9))'", "python3 -m runpy json.tool data.json"],
)
def test_an_ordinary_module_through_runpy_is_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision
