"""A bracket class in a glob prettier, eslint or stylelint expand themselves, read as picomatch
reads it: a POSIX class (`[[:alpha:]]`) inside it does not close it at its first `]`, so
`'.e[[:alpha:]]v'` is one character between `.e` and `v` and matches `.env`; a collating
element or equivalence class (`[[=n=]]`, `[[.n.]]`), rules the expander does not know, may match
anything. Allowed before under `Bash(npx prettier *)`: the class was read as `[[:alpha:]` and a
literal `]`, which matched nothing, while real prettier printed .env."""

from __future__ import annotations

from tether.permissions import Decision

from .conftest import ContextFactory, Tree, bash

ALLOW = ["Bash(npx prettier *)", "Bash(npx eslint *)", "Bash(npx stylelint *)"]
DENY = ["Read(.env)"]
FILES = {".env": "K=1\n", "src/app.ts": "const a = 1\n"}


def _denied(tree: Tree, shown: str) -> Decision:
    env = tree.ws / ".env"
    return Decision(
        "deny", "Read(.env)", f"{shown} matches {env}: reading {env} is denied by Read(.env)"
    )


def test_posix_classes_match_as_the_tool_matches(tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    cases = {
        "npx prettier --parser yaml '.e[[:alpha:]]v'": ".e?v",
        "npx prettier --parser yaml '.e[[:lower:]]v'": ".e?v",
        "npx prettier --parser yaml '.[[:alnum:]][[:alnum:]]v'": ".??v",
        "npx prettier --parser yaml '[[:punct:]]env'": "?env",
        "npx prettier --parser yaml '.e[![:digit:]]v'": ".e?v",
        "npx eslint '.e[[:alpha:]]v'": ".e?v",
        "npx stylelint '.e[[:alpha:][:digit:]]v'": ".e?v",
    }
    assert {c: bash(c, ctx) for c in cases} == {c: _denied(tree, s) for c, s in cases.items()}


def test_classes_not_known_cannot_be_judged(tree: Tree, make_ctx: ContextFactory) -> None:
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    asked = {
        "npx prettier --parser yaml '.e[[=n=]]v'": ".e…v",
        "npx prettier --parser yaml '.e[[.n.]]v'": ".e…v",
    }
    assert {c: bash(c, ctx) for c in asked} == {
        c: Decision("ask", "Read(.env)", f"{s} may reach files deny rule Read(.env) covers")
        for c, s in asked.items()
    }


def test_posix_classes_in_workspace_files_stay_allowed(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    command = "npx prettier --check 'src/[[:alpha:]]*.ts'"
    rule = "Bash(npx prettier *)"
    assert bash(command, ctx) == Decision("allow", rule, f"allowed by {rule}")
