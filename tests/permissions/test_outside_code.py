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


INSTALLERS = {
    "permissions": {
        "allow": [*ALLOW, "Bash(pip *)", "Bash(uv *)", "Bash(deno *)", "Bash(bun *)"],
        "deny": ["Bash(curl *)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "node --test --test-reporter={outside}/r.mjs src/a.js",
        "node --test-reporter {outside}/r.mjs --test",
        "node --test --test-reporter=file://{outside}/r.mjs",
        "node --test-global-setup={outside}/s.js --test",
        "node --snapshot-blob {outside}/snap.blob src/a.js",
        "deno run --import-map={outside}/map.json src/a.js",
        "deno run --config {outside}/deno.json src/a.js",
        "deno run -c {outside}/deno.json src/a.js",
        "bun --config={outside}/bunfig.toml src/a.js",
        "bun run -c {outside}/bunfig.toml src/a.js",
        "pip install -r {outside}/req.txt",
        "pip install --requirement={outside}/req.txt",
        "pip install -c {outside}/c.txt x",
        "pip install --find-links={outside} evilpkg",
        "pip install --find-links {outside} evilpkg",
        "pip install -f{outside} evilpkg",
        "pip install git+file://{outside}/repo",
        "pip install -e git+file://{outside}/repo#egg=x",
        "pip install --no-index --index-url file://{outside} x",
        "pip install x --extra-index-url=file://{outside}",
        "pip install evilpkg@file://{outside}/pkg",
        "pip install 'evilpkg @ file://{outside}/pkg'",
        "pip install evilpkg @ file://{outside}/pkg",
        "python3 -m pip install -r {outside}/req.txt",
        "uv pip install -r {outside}/req.txt",
        "uv pip install --constraint={outside}/c.txt x",
        "uv run --project {outside} true",
        "uv run --directory {outside} true",
        "uv --directory {outside} run true",
        "uv sync --project={outside}",
    ],
)
def test_installers_and_runtimes_taking_code_from_outside_ask(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """A module, configuration, import map, requirements file, package directory or index
    outside the workspace is code no rule has seen: asked, denied in bypassPermissions mode
    where a Bash deny rule exists."""
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(INSTALLERS))
    assert verdict.behavior == "ask", (text, verdict.reason)
    bypass = decide("Bash", {"command": text}, make_ctx(INSTALLERS, mode="bypassPermissions"))
    assert bypass.behavior == "deny", (text, bypass.reason)


@pytest.mark.parametrize(
    "command",
    [
        "pip install -r requirements.txt",
        "pip install requests==2.0 'flask[async]>=2'",
        "pip install -e .",
        "node --test --test-reporter=spec",
        "node --test-reporter=./src/r.mjs --test",
        "node -c src/a.js",
        "deno run --config deno.json src/a.js",
        "uv run --project . true",
    ],
)
def test_installers_and_runtimes_from_the_workspace_stay_allowed(
    command: str, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(INSTALLERS))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("pip install -r reqs/outside.txt", "ask"),
        ("pip install -r reqs/nested.txt", "ask"),
        ("python3 -m pip install --requirement reqs/url.txt", "ask"),
        ("uv pip install -c reqs/outside.txt x", "ask"),
        ("pip install -r reqs/plain.txt", "allow"),
    ],
)
def test_requirement_files_in_the_workspace_are_read(
    command: str, expected: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """The local projects a requirements file names are built as if on the command line;
    `-r` lines are read in turn, from the file's directory."""
    reqs = tree.ws / "reqs"
    reqs.mkdir()
    (reqs / "outside.txt").write_text(f"requests==2  # pinned\n-e {tree.outside}/pkg\n")
    (reqs / "nested.txt").write_text("flask\n-r more/inner.txt\n")
    (reqs / "more").mkdir()
    (reqs / "more" / "inner.txt").write_text(f"--find-links={tree.outside}\nx\n")
    (reqs / "url.txt").write_text(f"evil @ file://{tree.outside}/pkg ; python_version > '3'\n")
    (reqs / "plain.txt").write_text(
        "requests==2\n-e ./src\nflask[async]>=2 \\\n  --hash=sha256:ab\n"
    )
    verdict = decide("Bash", {"command": command}, make_ctx(INSTALLERS))
    assert verdict.behavior == expected, (command, verdict.reason)
    if expected == "ask":
        bypass = decide(
            "Bash", {"command": command}, make_ctx(INSTALLERS, mode="bypassPermissions")
        )
        assert bypass.behavior == "deny", (command, bypass.reason)
