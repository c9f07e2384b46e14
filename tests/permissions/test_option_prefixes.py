"""Long options read as each program reads them (option_names.py): getopt_long, argparse and
optparse take any unambiguous prefix, gdb's getopt_long_only takes it after one dash too, npm's
nopt takes a prefix of any of its settings. A prefix of an option that runs or loads code is
that option; a full name the program knows is itself."""

from __future__ import annotations

import pytest

from tether.permissions import decide
from tether.permissions.option_names import long_option

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(gdb:*)", "Bash(npm run:*)", "Bash(npx:*)", "Bash(make:*)"],
        "deny": ["Bash(wget:*)"],
    }
}

ABBREVIATED = [
    "gdb --batch --command={outside}/cmds ./a.out",
    "gdb -batch --comma={outside}/cmds ./a.out",
    "gdb -batch -comman {outside}/cmds ./a.out",
    "gdb -batch -init-comm={outside}/cmds ./a.out",
    "gdb -batch --early-init-c {outside}/cmds ./a.out",
    "gdb -batch --eval-c='shell wget x' ./a.out",
    "gdb -batch -init-eval='!wget x' ./a.out",
    "gdb -batch --ev=shell ./a.out",
    "npm run build --script-shel={outside}/sh",
    "npm run build --scrip {outside}/sh",
    "npm --script-sh={outside}/sh run build",
    "npm run build --node-opti=--require={outside}/hook.js",
    "npm run build --userconfi={outside}/npmrc",
    "npm run build --globalconf={outside}/npmrc",
    "npm run build --prefi={outside}",
    "npm run build --worksp={outside}/pkg",
    "npx --script-s={outside}/sh -c 'true'",
    'npm run build "$SETTING"',
    "make --makef={outside}/Makefile",
    "make --includ={outside}",
]


@pytest.mark.parametrize("command", ABBREVIATED)
def test_a_prefix_of_an_option_is_that_option(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": tree.fill(command)}, make_ctx(RULES))
    assert decision.behavior in ("ask", "deny"), decision


PLAIN = [
    "gdb -batch -ex bt -ex 'info registers' ./a.out",
    "gdb -e ./a.out -c core -batch",
    "gdb -batch -ex 'shell ls' ./a.out",
    "npm run build --if-present",
    "npm run build --prefix=packages/app",
    "npm run build -- --scripts-prepend-node-path",
]


@pytest.mark.parametrize("command", PLAIN)
def test_full_names_and_other_options_stay_allowed(command: str, make_ctx: ContextFactory) -> None:
    ctx = make_ctx({"permissions": {"allow": [*RULES["permissions"]["allow"], "Bash(ls:*)"]}})
    assert decide("Bash", {"command": command}, ctx).behavior == "allow"


def test_long_option_reads_as_the_program_does() -> None:
    gdb = ("--command", "--ex", "--eval-command")
    known = ("--core", "--configuration", "--exec", "--e")
    assert long_option("--comm=F", gdb) == ("--command", "F")
    assert long_option("-comm", gdb, known=known, one_dash=True) == ("--command", None)
    assert long_option("-ex", gdb, known=known, one_dash=True) == ("--ex", None)
    # A name the program knows in full is that option, not the longer one it begins.
    assert long_option("-e", gdb, known=known, one_dash=True) is None
    assert long_option("--e", ("--eval",), known=known) is None
    # Without one_dash, a single dash is a short option; without prefixes, exact names only.
    assert long_option("-comm", gdb) is None
    assert long_option("--comm", gdb, prefixes=False) is None
    assert long_option("--", gdb) is None
    assert long_option("file", gdb) is None
