"""What deno's subcommands write or fetch besides the code they run: an output option's file
(`compile -o`, `bundle -o`, `doc --output`, `coverage --output`, `install --root`, `test
--coverage=`, `--junit-path`, `--lock=`) and the files `deno fmt` and `deno lint --fix`
rewrite, judged as writes (outside the workspace: asked); `deno upgrade`, `deno x` and
`deno jupyter --install`: asked. Allowed before under `Bash(deno *)`, each of the asked ones."""

from __future__ import annotations

import pytest

from tether.permissions import Decision

from .conftest import ContextFactory, Tree, bash, expected

ALLOW = ["Bash(deno *)"]
DENY = ["Bash(curl *)", "Read(.env)"]
FILES = {"main.ts": "console.log(1)\n", "src/x.ts": "const a = 1\n"}
OUT = "writes {outside}/x, outside the workspace"

JUDGED = [
    ("deno fmt {outside}/x", "ask", None, OUT),
    ("deno fmt src/x.ts ../outside/x", "ask", None, OUT),
    ("deno lint --fix {outside}/x", "ask", None, OUT),
    ("deno compile -o {outside}/x main.ts", "ask", None, OUT),
    ("deno compile -qo{outside}/x main.ts", "ask", None, OUT),
    ("deno compile --output={outside}/x main.ts", "ask", None, OUT),
    ("deno bundle -o {outside}/x main.ts", "ask", None, OUT),
    ("deno install --root {outside}/x -n y main.ts", "ask", None, OUT),
    ("deno doc --html --output={outside}/x main.ts", "ask", None, OUT),
    ("deno coverage --output={outside}/x cov", "ask", None, OUT),
    ("deno test --coverage={outside}/x", "ask", None, OUT),
    ("deno test --junit-path={outside}/x", "ask", None, OUT),
    ("deno run --lock={outside}/x main.ts", "ask", None, OUT),
    ("deno cache --lock={outside}/x main.ts", "ask", None, OUT),
    (
        "deno upgrade",
        "ask",
        None,
        "deno upgrade replaces the deno program with one it downloads: not seen",
    ),
    (
        "deno x -A npm:cowsay",
        "ask",
        None,
        "deno x fetches a package and runs it, as npx does: not seen",
    ),
    (
        "deno x npm:cowsay",
        "ask",
        None,
        "deno x fetches a package and runs it, as npx does: not seen",
    ),
    (
        "deno jupyter --install",
        "ask",
        None,
        "deno jupyter --install writes a kernel under the home directory",
    ),
]

ALLOWED = [
    "deno fmt",
    "deno fmt src/x.ts",
    "deno fmt --check {outside}/x",
    "deno lint {outside}/x",
    "deno lint --fix src",
    "deno compile -o dist/app main.ts",
    "deno test --coverage=cov --junit-path=report.xml",
    "deno run --lock --check main.ts",
    "deno run main.ts -o {outside}/x",
]
"""Writes inside the workspace, reads, and words that are the script's."""


def test_deno_writes_and_fetches_are_judged(tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    wanted = expected(JUDGED, tree)
    assert {c: bash(c, ctx) for c in wanted} == wanted


@pytest.mark.parametrize("command", ALLOWED)
def test_deno_writes_inside_stay_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    allowed = Decision("allow", "Bash(deno *)", "allowed by Bash(deno *)")
    assert bash(tree.fill(command), ctx) == allowed
