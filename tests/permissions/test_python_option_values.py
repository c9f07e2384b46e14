"""Python's command line as Python reads it: an option's separate value is no script
(`--check-hash-based-pycs always -c CODE` runs CODE), and `python -m timeit` runs its setup
values however they are given (`-sCODE`, `-vvsCODE`, `--setup=CODE`, getopt prefixes), also
when another module runs timeit (`cProfile -m timeit`, `pdb -m timeit`, `runpy timeit`:
runpy runs its argument as `-m` does, so every reader of a module's line reads that one)."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(python3:*)", "Bash(python3.11:*)"],
        "deny": ["Bash(wget:*)", "Read(**/.env)", "Edit(.git/**)"],
    }
}
RUN = 'import subprocess; subprocess.run(["wget", "-q", "x"])'


@pytest.mark.parametrize(
    "command",
    [
        f"python3 --check-hash-based-pycs always -c '{RUN}'",
        f"python3 -W ignore --check-hash-based-pycs never -c '{RUN}'",
        f"python3.11 --check-hash-based-pycs default -m timeit '{RUN}'",
        f"python3 --check-hash-based-pycs always - <<< '{RUN}'",
        "python3 --check-hash-based-pycs always -c 'print(open(\".env\").read())'",
        'python3 --check-hash-based-pycs never -c \'open(".git/config", "a").write("x")\'',
        f"python3 -m timeit -s'{RUN}' pass",
        f"python3 -m timeit -ps'{RUN}'",
        f"python3 -m timeit -n 2 -vs '{RUN}' pass",
        f"python3 -m timeit -r1 -n1 -s'{RUN}'",
        f"python3 -m timeit --setup '{RUN}'",
        f"python3 -m timeit --s='{RUN}' pass",
        f"python3 -m timeit --setu='{RUN}' -- pass",
        f"python3 -m cProfile -m timeit -s'{RUN}'",
        f"python3 -m trace --count --module timeit --setup='{RUN}'",
        f"python3 -m profile -s time -m timeit -vs'{RUN}'",
        f"python3 -m pdb -m timeit --se='{RUN}'",
        # runpy runs its argument as `-m` does, through any number of layers
        f"python3 -m runpy timeit -s'{RUN}' pass",
        f"python3 -mrunpy timeit --setup='{RUN}'",
        f"python3 -m runpy runpy timeit -vs'{RUN}'",
        f"python3 -m cProfile -m runpy timeit -s'{RUN}'",
        f"python3 -m trace --count --module runpy timeit --se='{RUN}'",
        "python3 -m runpy pdb -c '!import os; os.system(\"wget x\")' x.py",
        f"python3 -m runpy code <<< '{RUN}'",
        "python3 -m runpy timeit -s 'print(open(\".env\").read())'",
        f"python3 -m runpy django shell -c '{RUN}'",
        f"python3 -m runpy pylint --init-hook='{RUN}' src",
    ],
)
def test_hidden_code_meets_the_deny_rules(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "deny", decision


@pytest.mark.parametrize(
    "command",
    [
        "python3 --check-hash-based-pycs always src/app.py",
        "python3 -m timeit -n 100 -s 'x = list(range(9))' 'sorted(x)'",
        "python3 -m timeit --number=5 --setup='import math' 'math.sqrt(2)'",
        "python3 -m cProfile -m timeit 'x = 1'",
        "python3 -m runpy timeit 'sum(range(9))'",
        "python3 -m runpy json.tool data.json",
    ],
)
def test_plain_uses_stay_allowed(command: str, tree: Tree, make_ctx: ContextFactory) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES))
    assert decision.behavior == "allow", decision
