"""deno's command line read with the option tables of deno itself (deno_option_table.py, from
deno 2.9.6's help): its global options before the subcommand (`-q`, `-L LEVEL`), which read
the line before as `deno SCRIPT` and skipped every check; the options taking the next word
that were missing from the table (`--ext ts`, `serve --port N`, `compile --include F`...),
which ended deno's options early and hid a later `-A`; an option the table does not know,
which is asked rather than guessed past; `deno i` (install's other name), `bundle
--outdir`, `init --npm`, `create`, `publish`, `watch`. Each judged row was allowed before
under `Bash(deno *)`."""

from __future__ import annotations

import pytest

from tether.permissions import Decision
from tether.permissions.deno_options import DenoLine, deno_line

from .conftest import ContextFactory, Tree, bash, expected

ALLOW = ["Bash(deno *)"]
DENY = ["Bash(curl *)", "Read(.env)"]
FILES = {
    "main.ts": "console.log(1)\n",
    ".env": "SECRET=1\n",
    "deno.json": '{"tasks": {"leak": "cat .env", "ok": "deno run main.ts"}}',
}
ALL = "deno --allow-all gives the code it runs every permission"
GLOBAL = "deno install -g writes a program to deno's bin directory, run later"
SCRIPTS = "deno install --allow-scripts runs packages' lifecycle scripts: not seen"
ENV = "reading {ws}/.env is denied by Read(.env)"


def _unknown(word: str) -> str:
    return (
        f"deno option {word} is not one tether knows (from deno 2.9.6): "
        "cannot tell which word it takes, so what deno runs is not known"
    )


JUDGED = [
    # Options before the subcommand.
    ("deno -q run -A main.ts", "ask", None, ALL),
    ("deno --quiet run -A main.ts", "ask", None, ALL),
    ("deno -L info run -A main.ts", "ask", None, ALL),
    ("deno --log-level=info run -A main.ts", "ask", None, ALL),
    ("deno --log-level info -q serve -A main.ts", "ask", None, ALL),
    ("deno -q test -A", "ask", None, ALL),
    ("deno -q task leak", "deny", "Read(.env)", "deno runs leak from deno.json: " + ENV),
    (
        "deno -q eval 'Deno.readTextFileSync(\".env\")'",
        "deny",
        "Read(.env)",
        "deno's code names .env: " + ENV,
    ),
    ("deno -q fmt {outside}/x.ts", "ask", None, "writes {outside}/x.ts, outside the workspace"),
    ("deno -q install -g npm:x", "ask", None, GLOBAL),
    (
        "deno -q x npm:cowsay",
        "ask",
        None,
        "deno x fetches a package and runs it, as npx does: not seen",
    ),
    # Options taking the next word.
    ("deno run --ext ts -A main.ts", "ask", None, ALL),
    ("deno run --conditions x -A main.ts", "ask", None, ALL),
    ("deno run --preload x.ts -A main.ts", "ask", None, ALL),
    ("deno run --require x.js -A main.ts", "ask", None, ALL),
    ("deno serve --port 8111 -A main.ts", "ask", None, ALL),
    ("deno serve --host 127.0.0.1 -A main.ts", "ask", None, ALL),
    ("deno compile --include x -A main.ts", "ask", None, ALL),
    ("deno compile --icon x -A main.ts", "ask", None, ALL),
    ("deno --ext ts -A main.ts", "ask", None, ALL),
    # Options deno's table does not know: where they end is not known.
    ("deno run --import x.ts main.ts", "ask", None, _unknown("--import")),
    ("deno run --made-up x main.ts", "ask", None, _unknown("--made-up")),
    ("deno --made-up main.ts", "ask", None, _unknown("--made-up")),
    ("deno -Z run main.ts", "ask", None, _unknown("-Z")),
    # Other names, other subcommands.
    ("deno i --allow-scripts", "ask", None, SCRIPTS),
    ("deno i -g npm:x", "ask", None, GLOBAL),
    ("deno watch -A main.ts", "ask", None, ALL),
    (
        "deno bundle --outdir {outside} main.ts",
        "ask",
        None,
        "writes {outside}, outside the workspace",
    ),
    (
        "deno init --npm vite",
        "ask",
        None,
        "deno init --npm/--jsr fetches a template package and runs it: not seen",
    ),
    (
        "deno create npm:create-x",
        "ask",
        None,
        "deno create fetches a template package and runs it: not seen",
    ),
    ("deno publish", "ask", None, "deno publish sends the package to a registry"),
    (
        "deno run --allow-import=evil.example main.ts",
        "ask",
        None,
        "deno --allow-import lets the code it runs import code from evil.example",
    ),
]

ALLOWED = [
    "deno -q run main.ts",
    "deno -L info main.ts",
    "deno --log-level=debug fmt",
    "deno -q task ok",
    "deno run --ext ts main.ts",
    "deno serve --port 8000 main.ts",
    "deno run --unstable-kv main.ts",
    "deno run main.ts --made-up -A",
    "deno i",
    "deno -q check main.ts",
]
"""Options that only print, values of known options, the script's own words: no grant."""


def test_deno_command_line_is_read_as_deno_reads_it(tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    wanted = expected(JUDGED, tree)
    assert {c: bash(c, ctx) for c in wanted} == wanted


@pytest.mark.parametrize("command", ALLOWED)
def test_deno_lines_that_grant_nothing_stay_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    assert bash(command, ctx) == Decision("allow", "Bash(deno *)", "allowed by Bash(deno *)")


LINES = [
    (
        ("-q", "-L", "info", "run", "--ext", "ts", "-A", "x.ts", "-R"),
        DenoLine(
            "run",
            (("--quiet", None), ("--log-level", "info"), ("--ext", "ts"), ("--allow-all", None)),
            ("x.ts",),
            (),
        ),
    ),
    (
        ("--lock", "run", "x.ts"),  # deno takes `run` as the lock file: `deno x.ts`
        DenoLine("", (("--lock", "run"),), ("x.ts",), ()),
    ),
    (
        ("run", "-R.", "-Rsrc", "-qR=a", "x.ts"),
        DenoLine(
            "run",
            (
                ("--allow-read", "."),
                ("--allow-read", "src"),
                ("--quiet", None),
                ("--allow-read", "a"),
            ),
            ("x.ts",),
            (),
        ),
    ),
    (
        ("i", "-gf", "npm:x"),
        DenoLine("install", (("--global", None), ("--force", None)), ("npm:x",), ()),
    ),
    (("rm", "x"), DenoLine("remove", (), ("x",), ())),
    (("--what", "x.ts", "-A"), DenoLine("", (("--what", None),), ("x.ts",), ("--what",))),
]


@pytest.mark.parametrize(("args", "line"), LINES)
def test_deno_words_are_parted_as_deno_parts_them(args: tuple[str, ...], line: DenoLine) -> None:
    assert deno_line(args) == line
