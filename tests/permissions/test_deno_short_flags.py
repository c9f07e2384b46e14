"""deno's short options read as deno's parser (clap) reads them: each letter of a group its own
option (`-rA` is `--reload --allow-all`), a permission letter taking a value only after `=`
(`-rR=src`), a letter taking a value (`-c`, `-L`, `-o`, `-n`, `-e`) ending the group. Each grant
is judged in every subcommand that runs code (run, test, bench, serve, repl, compile)
and `deno install -g` in a group. Allowed before under `Bash(deno *)`: a group was read as
permissions only when every letter was one, so `-rA` granted everything unseen."""

from __future__ import annotations

import pytest

from tether.permissions import Decision

from .conftest import ContextFactory, Tree, bash, expected

ALLOW = ["Bash(deno *)"]
DENY = ["Bash(curl *)", "Read(.env)"]
FILES = {"main.ts": "console.log(1)\n", "deno.json": "{}\n", ".env": "K=1\n"}
ALL = "deno --allow-all gives the code it runs every permission"
READS = "deno --allow-read gives the code it runs reads of every file"
WRITES = "deno --allow-write gives the code it runs writes of every file"
GLOBAL = "deno install -g writes a program to deno's bin directory, run later"

JUDGED = [
    ("deno run -Ar main.ts", "ask", None, ALL),
    ("deno run -rA main.ts", "ask", None, ALL),
    ("deno run -qA main.ts", "ask", None, ALL),
    ("deno run -Aq main.ts", "ask", None, ALL),
    ("deno run -Rr main.ts", "ask", None, READS),
    ("deno run -qrR main.ts", "ask", None, READS),
    ("deno run -Wr main.ts", "ask", None, WRITES),
    (
        # deno reads `-R.` as `--allow-read=.`: the whole workspace, .env with it.
        "deno run -R. main.ts",
        "ask",
        "Read(.env)",
        "searches {ws}, which may hold files deny rule Read(.env) covers",
    ),
    ("deno run -qcdeno.json -A main.ts", "ask", None, ALL),
    ("deno run -qc deno.json -rA main.ts", "ask", None, ALL),
    (
        "deno run -rR=.env main.ts",
        "deny",
        "Read(.env)",
        "reading {ws}/.env is denied by Read(.env)",
    ),
    ("deno -Ar main.ts", "ask", None, ALL),
    ("deno test -Ar", "ask", None, ALL),
    ("deno test -rR", "ask", None, READS),
    ("deno bench -rA", "ask", None, ALL),
    ("deno serve -rA main.ts", "ask", None, ALL),
    ("deno repl -rA", "ask", None, ALL),
    ("deno repl -qA", "ask", None, ALL),
    ("deno compile -rA main.ts", "ask", None, ALL),
    ("deno compile -A -o out main.ts", "ask", None, ALL),
    ("deno install -gA npm:x", "ask", None, GLOBAL),
    ("deno install -Afg npm:x", "ask", None, GLOBAL),
    ("deno install -n x -g npm:x", "ask", None, GLOBAL),
]

ALLOWED = [
    "deno run -r main.ts",
    "deno run -qr main.ts",
    "deno run -rR=src main.ts",
    "deno run -qc deno.json main.ts",
    "deno run -cdeno.json main.ts",
    "deno run -L info main.ts",
    "deno test -q",
    "deno compile -q -o out main.ts",
    "deno install -f",
]
"""Groups of letters that grant nothing, or grant the workspace, and values that are no
script."""


def test_deno_short_groups_grant_each_letter(tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    wanted = expected(JUDGED, tree)
    assert {c: bash(c, ctx) for c in wanted} == wanted


@pytest.mark.parametrize("command", ALLOWED)
def test_deno_short_groups_granting_nothing_stay_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    assert bash(command, ctx) == Decision("allow", "Bash(deno *)", "allowed by Bash(deno *)")
