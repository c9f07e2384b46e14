"""stylelint's options that load code (`--config`/`-c`, `--config-basedir`, `--custom-syntax`,
`--custom-formatter`) judged as prettier's `--config` is: outside the workspace, asked."""

from __future__ import annotations

from tether.permissions import Decision

from .conftest import ContextFactory, Tree, bash

ALLOW = ["Bash(npx stylelint *)"]
DENY = ["Read(.env)"]
FILES = {"src/a.scss": "a {}\n"}


def test_stylelint_code_options_outside_ask(tree: Tree, make_ctx: ContextFactory) -> None:
    """stylelint loads its configuration, custom syntax and custom formatter as code, as
    prettier's `--config` is: outside the workspace, asked (allowed before)."""
    tree.write(FILES)
    ctx = make_ctx({"permissions": {"allow": ALLOW, "deny": DENY}})
    out = tree.outside
    asked = {
        f"npx stylelint --config {out}/x.js 'src/*.css'": f"{out}/x.js",
        f"npx stylelint -c {out}/x.js src/a.css": f"{out}/x.js",
        f"npx stylelint --custom-formatter {out}/f.js src/a.css": f"{out}/f.js",
        f"npx stylelint --custom-syntax={out}/s.js src/a.css": f"{out}/s.js",
        f"npx stylelint --config-basedir {out} src/a.css": f"{out}",
    }
    assert {c: bash(c, ctx) for c in asked} == {
        c: Decision("ask", None, f"runs code from {p}, outside the workspace: not seen")
        for c, p in asked.items()
    }
    rule = "Bash(npx stylelint *)"
    inside = "npx stylelint -c .stylelintrc.json --custom-syntax postcss-scss src/a.scss"
    assert bash(inside, ctx) == Decision("allow", rule, f"allowed by {rule}")
