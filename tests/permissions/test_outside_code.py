"""Allowed runners that load code from a file their options name (makefiles and include
directories, node's preloads, npm's script shell and package directory, jq's and ruby's
library paths) ask when that code is outside the workspace: no rule has seen it."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

ALLOW = ["Bash(make *)", "Bash(npm run *)", "Bash(node *)", "Bash(jq *)", "Bash(ruby *)"]
ALLOW += ["Bash(pnpm *)", "Bash(perl *)"]
RULES = {"permissions": {"allow": ALLOW}}


@pytest.mark.parametrize(
    "command",
    [
        "make -f {outside}/rules.mk",
        "make --makefile={outside}/rules.mk test",
        "make -sC {outside} all",
        "make --dir={outside}",
        "make -I{outside} -f Makefile",
        "make -j4 --include-dir {outside}",
        "npm run build --script-shell {outside}/sh",
        "pnpm run lint --dir {outside}",
        "npm run test --prefix={outside}",
        "npm run t --node-options='--import {outside}/hook.mjs'",
        "node -r {outside}/pre.js src/app.js",
        "node --loader=file://{outside}/l.mjs src/app.js",
        "jq -L{outside} -n 'import \"m\" as m; 1'",
        "ruby -I {outside} -r {outside}/x.rb src/app.rb",
        "perl -I{outside} src/app.pl",
    ],
)
def test_code_from_outside_the_workspace_asks(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    assert verdict.behavior == "ask", (text, verdict.reason)
    assert "outside the workspace" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "make -C src -f Makefile all",
        "make -j4 test",
        "npm run build --prefix src",
        "node -r ts-node/register src/app.js",
        "jq -L src -n 1",
        "ruby -I src src/app.rb",
    ],
)
def test_code_from_the_workspace_stays_allowed(command: str, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
