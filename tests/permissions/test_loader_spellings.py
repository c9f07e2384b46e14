"""Code runtimes and installers load, read as they read it: a module URL through the WHATWG
parser node uses (module_urls.py), pip's options as optparse takes them and its requirement
files as it follows them, the env files node and uv load (env_files.py), and the paths uv,
pipx and bun take code from. Each spelling that loads code from outside the workspace asks
(denied in bypassPermissions mode where a Bash deny rule exists), and code in a `data:` URL is
judged as the runtime's `-e CODE`."""

from __future__ import annotations

import base64
import json
import os

import pytest

from tether.permissions import decide
from tether.permissions.module_urls import module_specifier

from .conftest import ContextFactory, Tree

ALLOW = ["node", "bun", "pip", "pip3", "uv", "pipx", "python3", "tsx", "npx", "dotenv"]
ALLOW += ["dotenvx", "env-cmd"]
RULES = {
    "permissions": {
        "allow": [f"Bash({p} *)" for p in ALLOW],
        "deny": ["Bash(wget *)", "Read(./.env)"],
    }
}
RUN_WGET = 'import("child_process").then(c=>c.execSync("wget x"))'


def _judge(tree: Tree, make_ctx: ContextFactory, command: str) -> tuple[str, str, str]:
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    bypass = decide("Bash", {"command": text}, make_ctx(RULES, mode="bypassPermissions"))
    return verdict.behavior, bypass.behavior, verdict.reason


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("\t data:text/javascript,x \n", "data:text/javascript,x"),
        ("d\nat\ta:text/javascript,x", "data:text/javascript,x"),
        ("\x01DaTa:text/javascript,x", "data:text/javascript,x"),
        ("FiLe:///o/x.mjs", "/o/x.mjs"),
        ("file://LOCALHOST/o/x.mjs", "/o/x.mjs"),
        ("file:/o/%2e%2E/p/x%20y.mjs", "/p/x y.mjs"),
        ("file:///w/src/.%2e/../o/x.mjs", "/o/x.mjs"),
        ("file:\\\\\\o\\x.mjs", "/o/x.mjs"),
        ("file://elsewhere/o/x.mjs", "data:,"),
        ("file:///o%2Fx.mjs", "data:,"),
        ("./src/%2e%2e/%2E%2E/o/x.mjs", "./../o/x.mjs"),
        ("./src\\..\\..\\o\\x.mjs", "./../o/x.mjs"),
        ("/w/%2e%2e/o/x.mjs", "/o/x.mjs"),
        ("./src/x.mjs", "./src/x.mjs"),
        ("ts-node/register", "ts-node/register"),
        ("@scope/pkg", "@scope/pkg"),
    ],
)
def test_a_module_url_is_read_as_node_reads_it(word: str, expected: str) -> None:
    assert module_specifier(word, esm=True) == expected


@pytest.mark.parametrize(
    "command",
    [
        "node --import ' data:text/javascript,{code}' src/a.js",
        "node --import $'\\tdata:text/javascript,{code}' src/a.js",
        "node --loader 'da\tta:text/javascript,{code}' src/a.js",
        "node --experimental-loader=$'dat\\na:text/javascript,{code}' src/a.js",
        "node --import $'\\x1fDATA:text/javascript,{code} ' src/a.js",
        "node --import ' data:text/javascript;base64,{b64}' src/a.js",
        "bun --preload ' data:text/javascript,{code}' src/a.js",
    ],
)
def test_data_urls_node_cleans_up_are_judged_as_their_code(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    text = command.format(code=RUN_WGET, b64=base64.b64encode(RUN_WGET.encode()).decode())
    program = text.split()[0]
    option = "--preload" if program == "bun" else "--import"
    plain = f"{program} {option} 'data:text/javascript,{RUN_WGET}' src/a.js"
    assert _judge(tree, make_ctx, text) == _judge(tree, make_ctx, plain), text
    assert "inline code" in _judge(tree, make_ctx, text)[2]
    leak = text.replace(RUN_WGET, 'import("fs").then(f=>f.readFileSync(".env"))')
    if "base64" not in text:
        assert _judge(tree, make_ctx, leak)[:2] == ("deny", "deny"), leak


@pytest.mark.parametrize(
    "command",
    [
        "node --import 'FILE://{outside}/x.mjs' src/a.js",
        "node --import ' file://{outside}/x.mjs' src/a.js",
        "node --import 'file://localhost{outside}/x.mjs' src/a.js",
        "node --import 'file://{ws}/src/%2E%2E/%2e%2e/outside/x.mjs' src/a.js",
        "node --import './src/%2e%2e/../outside/x.mjs' src/a.js",
        "node --loader 'file:{outside}/x.mjs' src/a.js",
        "node -r ' file://{outside}/x.cjs' src/a.js",
        "node --import 'file://evil.example/x.mjs' src/a.js",
    ],
)
def test_file_urls_outside_the_workspace_ask(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    default, bypass, reason = _judge(tree, make_ctx, command)
    assert (default, bypass) == ("ask", "deny"), (command, reason)


@pytest.mark.parametrize(
    "command",
    [
        "node --import 'file://{ws}/src/m.mjs' src/a.js",
        "node --import ./src/m.mjs src/a.js",
        "node -r dotenv/config src/a.js",
        "node --env-file=.env.local src/a.js",
        "node --env-file-if-exists=.env.absent src/a.js",
        "pip install -r reqs/top.txt",
        "pip install --pre -r reqs/top.txt",
        "pip install --upgrade ./src",
        "uv run --python 3.12 true",
        "uv run --python /usr/bin/python3 true",
        "uv run --env-file .env.local true",
        "uv add requests",
        "pipx install black",
        "bun run src/a.js",
    ],
)
def test_ordinary_spellings_stay_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    _setup(tree)
    default, _, reason = _judge(tree, make_ctx, command)
    assert default == "allow", (command, reason)


def _setup(tree: Tree) -> None:
    reqs = tree.ws / "reqs"
    reqs.mkdir(exist_ok=True)
    (reqs / "top.txt").write_text("requests==2\n-r sub/inner.txt\n")
    (reqs / "sub").mkdir(exist_ok=True)
    (reqs / "sub" / "inner.txt").write_text("flask\n-c ../pins.txt\n")
    (reqs / "pins.txt").write_text("flask<4\n")
    (reqs / "chain.txt").write_text("x\n-r ../../outside/req.txt\n")
    (reqs / "abs.txt").write_text(f"--requirement={tree.outside}/req.txt\n")
    (reqs / "deep.txt").write_text("-r sub/deeper.txt\n")
    (reqs / "sub" / "deeper.txt").write_text(f"--constr {tree.outside}/pins.txt\n")
    (reqs / "linked.txt").write_text("-r ../outlink/req.txt\n")
    (reqs / "env.txt").write_text("-r ${REQ_DIR}/req.txt\n")
    (reqs / "abbrev.txt").write_text(f"--find-lin={tree.outside}\nx\n")
    (tree.outside / "req.txt").write_text("x\n")
    (tree.outside / "pins.txt").write_text("x\n")
    if not (tree.ws / "outlink").exists():
        os.symlink(tree.outside, tree.ws / "outlink")
    (tree.ws / ".env.local").write_text("PORT=3000\nNODE_ENV=development\n")
    (tree.ws / ".env.node").write_text(f"NODE_OPTIONS='--require {tree.outside}/x.cjs'\n")
    (tree.ws / ".env.path").write_text("  export   PATH = /tmp/bin:/usr/bin\n")
    (tree.ws / ".env.preload").write_text('A=1\nLD_PRELOAD="./x.so"\n')
    (tree.ws / "src" / "m.mjs").write_text("export {}\n")
    (tree.ws / "envd").mkdir(exist_ok=True)
    (tree.ws / "envd" / ".env").write_text("PATH=/tmp/bin\n")
    (tree.ws / "src" / "a.js").write_text("1\n")


@pytest.mark.parametrize(
    "command",
    [
        "pip install -r reqs/chain.txt",
        "pip install -r reqs/abs.txt",
        "pip install -r reqs/deep.txt",
        "pip install -r reqs/linked.txt",
        "pip install -r reqs/env.txt",
        "pip install -r reqs/abbrev.txt",
        "pip install -r 'reqs/ch'*.txt",
        "pip install -r reqs/?bs.txt",
        "pip3 install -rreqs/chain.txt",
        "pip install --requirem=reqs/chain.txt",
        "pip install --requi reqs/abs.txt",
        "pip install --find-lin={outside} x",
        "pip install --extra-index=file://{outside} x",
        "pip install --constr={outside}/pins.txt x",
        "python3 -m pip install --requirement=reqs/deep.txt",
        "uv pip install -r reqs/chain.txt",
        "uv run --python {outside}/py true",
        "uv run -p ../outside/py true",
        "uv add {outside}/pkg",
        "uv add ../outside/pkg",
        "uv run --env-file {outside}/e.env true",
        "pipx install {outside}/pkg",
        "pipx install --spec {outside}/pkg x",
        "bun run {outside}/x.js",
    ],
)
def test_installers_reaching_outside_code_ask(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    _setup(tree)
    default, bypass, reason = _judge(tree, make_ctx, command)
    assert (default, bypass) == ("ask", "deny"), (command, reason)


@pytest.mark.parametrize(
    "command",
    [
        "node --env-file=.env.node src/a.js",
        "node --env-file .env.path src/a.js",
        "node --env-file-if-exists=.env.preload src/a.js",
        "bun --env-file=.env.node src/a.js",
        "uv run --env-file .env.path true",
        "UV_ENV_FILE=.env.preload uv run true",
        "tsx --env-file=.env.node src/a.js",
        "tsx watch --env-file .env.node src/a.js",
        "npx tsx --env-file-if-exists=.env.node src/a.js",
        "dotenv -f .env.preload run python3 src/app.py",
        "dotenv --file=.env.path run true",
        "dotenv -e .env.node -- node src/a.js",
        "dotenv -e .env.local -e .env.node -- node src/a.js",
        "dotenv -c node -- node src/a.js",
        "cd envd && dotenv run true",
        "cd envd && dotenv -- true",
        "npx dotenv -e .env.node -- node src/a.js",
        "npx --yes dotenv-cli -e .env.node -- node src/a.js",
        "dotenvx run -f .env.preload -- true",
        "env-cmd -f .env.path true",
    ],
)
def test_an_env_file_setting_what_runs_is_judged_as_that_setting(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """`node --env-file=F` whose F sets NODE_OPTIONS is `NODE_OPTIONS=... node`: denied where
    a Bash deny rule exists, as that assignment is."""
    _setup(tree)
    default, bypass, reason = _judge(tree, make_ctx, command)
    assert (default, bypass) == ("deny", "deny"), (command, reason)
    assert "which changes what" in reason, reason


NPM_RULES = {
    "permissions": {
        "allow": [f"Bash({p} *)" for p in ("npm", "pnpm", "yarn", "bun")],
        "deny": ["Bash(wget *)"],
    }
}


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("npm install {outside}/pkg", "ask"),
        ("npm i ../outside/pkg", "ask"),
        ("npm add --save-dev file:{outside}/pkg", "ask"),
        ("npm install evil@file:../outside/pkg", "ask"),
        ("npm install git+file://{outside}/repo", "ask"),
        ("npm install {outside}/pkg.tgz", "ask"),
        ("npm link {outside}/pkg", "ask"),
        ("npm install ./outlink/pkg", "ask"),
        ("pnpm add link:{outside}/pkg", "ask"),
        ("yarn add @s/x@portal:{outside}/pkg", "ask"),
        ("bun add {outside}/pkg", "ask"),
        ("cd pkgs/f && npm install", "ask"),
        ("cd pkgs/f && npm ci", "ask"),
        ("cd pkgs && npm install", "ask"),  # the workspaces' dependencies are installed too
        ("cd pkgs/ok && npm install", "allow"),
        ("npm install react", "allow"),
        ("npm install ./pkgs/ok", "allow"),
        ("pnpm add lodash@4", "allow"),
    ],
)
def test_packages_installed_from_outside_ask(
    command: str, expected: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """An install runs the lifecycle scripts of what it installs: a package from a path,
    `file:`/`link:` spec or tarball outside the workspace, named on the line or in a
    package.json the install reads (its workspaces' too), is code not seen."""
    ws = tree.ws
    (ws / "pkgs" / "f").mkdir(parents=True)
    (ws / "pkgs" / "ok").mkdir(parents=True)
    (ws / "package.json").write_text(json.dumps({"name": "r", "workspaces": ["pkgs/ok"]}))
    (ws / "pkgs" / "package.json").write_text(json.dumps({"workspaces": ["f", "ok"]}))
    deps = {"dependencies": {"o": "file:../../../outside/pkg"}}
    (ws / "pkgs" / "f" / "package.json").write_text(json.dumps({"name": "f", **deps}))
    ok = {"name": "ok", "devDependencies": {"a": "file:./lib", "b": "^1"}}
    (ws / "pkgs" / "ok" / "package.json").write_text(json.dumps(ok))
    (tree.outside / "pkg").mkdir()
    os.symlink(tree.outside, ws / "outlink")
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(NPM_RULES))
    assert verdict.behavior == expected, (text, verdict.reason)
    if expected == "ask":
        bypass = decide("Bash", {"command": text}, make_ctx(NPM_RULES, mode="bypassPermissions"))
        assert bypass.behavior == "deny", (text, bypass.reason)


@pytest.mark.parametrize(
    "command",
    [
        "npx evilbin",
        "npx --no-install evilbin --fix",
        "npx --yes -- evilbin",
        "npm exec evilbin",
        "npm x --package=. evilbin",
        "pnpm exec evilbin",
        "pnpm evilbin",
        "yarn evilbin",
        "yarn run evilbin",
        "bunx evilbin",
        "bun x evilbin",
        "cd pkgs/f && npx evilbin",
        "npm run lint",
        "cd pkgs/f && npm test",
    ],
)
def test_programs_of_node_modules_bin_are_judged_as_the_files_they_are(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """A package runner finds a name in every `node_modules/.bin` from its directory up, as
    npm's PATH does: that file runs, judged as when run by its path (denied where it runs a
    denied program), whichever rule allows the runner."""
    ws = tree.ws
    bins = ws / "node_modules" / ".bin"
    bins.mkdir(parents=True)
    (bins / "evilbin").write_text("#!/bin/sh\nwget http://example.com/x\n")
    (bins / "evilbin").chmod(0o755)
    (bins / "okbin").write_text("#!/usr/bin/env node\nconsole.log(1)\n")
    (bins / "okbin").chmod(0o755)
    scripts = {"lint": "evilbin --fix", "fmt": "okbin"}
    (ws / "package.json").write_text(json.dumps({"name": "r", "scripts": scripts}))
    (ws / "pkgs" / "f").mkdir(parents=True)
    (ws / "pkgs" / "f" / "package.json").write_text(
        json.dumps({"name": "f", "scripts": {"test": "evilbin --watch"}})
    )
    rules = {**NPM_RULES["permissions"]}
    rules["allow"] = [*rules["allow"], "Bash(npx *)", "Bash(bunx *)"]
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx({"permissions": rules}, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)
        assert "wget" in verdict.reason, verdict.reason
    for fine in ("npx okbin", "npm run fmt", "yarn okbin", "npx prettier --check src"):
        verdict = decide("Bash", {"command": fine}, make_ctx({"permissions": rules}))
        assert verdict.behavior == "allow", (fine, verdict.reason)
