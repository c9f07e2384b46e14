"""make and the package managers, read as they read their project files: every recipe make
may run for a goal (pattern, suffix, `.DEFAULT` and built-in rules, recipe lines continued
with a backslash, `$(shell)` and `!=`, included makefiles, exported variables) and every
package script a command runs (options before and between its words, lifecycle scripts,
`yarn X`/`pnpm X`/`bun X`, `deno task`) is judged; what changes how they run and is not
understood (`define`, `.RECIPEPREFIX`, `SHELL`, `.SHELLFLAGS`, a script shell, a project
config file's code settings, more than one package) is code not read: asked, denied in
bypassPermissions mode. Real make is the judge of the makefile cases: each runs the
sentinel, and none is allowed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": [
            *("Bash(make *)", "Bash(make)", "Bash(gmake *)", "Bash(npm *)", "Bash(yarn *)"),
            *("Bash(pnpm *)", "Bash(bun *)", "Bash(deno *)", "Bash(node *)", "Bash(true)"),
            *("Bash(corepack *)", "Bash(cc *)", "Bash(git *)", "Bash(echo *)", "Bash(ls)"),
        ],
        "deny": ["Bash(sentinel *)", "Bash(sentinel)"],
    }
}
RUNNER = '#!/bin/sh\nsentinel runner\nexec /bin/sh "$@"\n'

MAKEFILES = {
    "pattern.mk": ("all: app.o\n\ttrue\n%.o: %.c\n\tsentinel $@\n", ""),
    "anything.mk": ("%:\n\tsentinel $@\n", "whatever"),
    "default.mk": ("all:\n\ttrue\n.DEFAULT:\n\tsentinel $@\n", "nothing-here"),
    "suffix.mk": (".SUFFIXES: .in .out\n.in.out:\n\tsentinel $<\nall: data.out\n", ""),
    "continued.mk": ("all:\n\t@sent\\\n\tinel go\n", ""),
    "immediate.mk": ("V := $(shell sentinel a)\nall:\n\ttrue\n", ""),
    "bang.mk": ("V != sentinel b\nall:\n\ttrue\n", ""),
    "deferred.mk": ("V = $(shell sentinel c)\nall:\n\techo $(V)\n", ""),
    "include.mk": ("include sub/rules.mk\n", ""),
    "dash_include.mk": ("-include sub/rules.mk\n", ""),
    "sinclude.mk": ("sinclude sub/rules.mk\n", ""),
    "shell.mk": ("SHELL = ./tools/runner.sh\nall:\n\ttrue\n", ""),
    "shellflags.mk": ("SHELL = /bin/sh\n.SHELLFLAGS = -ec sentinel\nall:\n\ttrue\n", ""),
    "define.mk": ("define BODY\nsentinel d\nendef\nall:\n\t$(BODY)\n", ""),
    "prefix.mk": (".RECIPEPREFIX = !\nall:\n!sentinel e\n", ""),
    "path.mk": ("export PATH := $(CURDIR)/tools:$(PATH)\nall:\n\tls\n", ""),
    "compiler.mk": ("CC = ./tools/runner.sh\n", "prog"),
    "dry_plus.mk": ("all:\n\t+sentinel f\n", "-n"),
    "eval.mk": ("R = all: ; sentinel g\n$(eval $(R))\n", ""),
}
MAKE_COMMANDS = [
    *(f"make -f {name} {goal}".rstrip() for name, (_, goal) in MAKEFILES.items()),
    "make -C sub",
    "make -Csub",
    "make --directory=sub",
    "make --dir sub",
    "make -C sub/../sub",
    "make -C {ws}/sub",
    "make -C . -f sub/rules.mk",
    "gmake -C sub",
    "make -s -C sub/ -k",
]


@pytest.fixture
def project(tree: Tree) -> Tree:
    ws = tree.ws
    for name, (text, _) in MAKEFILES.items():
        (ws / name).write_text(text)
    (ws / "sub").mkdir()
    (ws / "sub" / "rules.mk").write_text("all:\n\tsentinel h\n")
    (ws / "sub" / "Makefile").write_text("all:\n\tsentinel i\n")
    (ws / "tools").mkdir()
    for name in ("runner.sh", "ls"):
        (ws / "tools" / name).write_text(RUNNER)
        (ws / "tools" / name).chmod(0o755)
    for name in ("app.c", "data.in", "prog.c"):
        (ws / name).write_text("x\n")
    return tree


def _sentinel_runs(tree: Tree, command: str) -> bool:
    """Whether running `command` for real (make reading the makefiles) runs the sentinel."""
    bin_dir = tree.root / "bin"
    bin_dir.mkdir(exist_ok=True)
    mark = tree.root / "mark"
    mark.unlink(missing_ok=True)
    sentinel = bin_dir / "sentinel"
    sentinel.write_text(f'#!/bin/sh\necho "$@" >> {mark}\n')
    sentinel.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}
    subprocess.run(
        command, shell=True, cwd=tree.ws, env=env, capture_output=True, timeout=60, check=False
    )
    return mark.exists()


@pytest.mark.skipif(shutil.which("make") is None, reason="GNU make is not installed")
@pytest.mark.parametrize("command", MAKE_COMMANDS)
def test_makefile_code_that_runs_a_denied_program_is_not_allowed(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    command = project.fill(command)
    default = decide("Bash", {"command": command}, make_ctx(RULES))
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert _sentinel_runs(project, command), command  # make is the judge: it does run
    assert default.behavior != "allow", (command, default.reason)
    if "path.mk" in command:
        # The workspace's tools/ put on PATH: asked in every mode, bypass too (path_variable).
        assert bypass.behavior == "ask", bypass
        assert "puts on PATH" in bypass.reason, bypass
        return
    assert bypass.behavior == "deny", (command, bypass.reason)


SCRIPTS = {
    "build": "true",
    "ship": "sentinel n",
    "postinstall": "sentinel o",
    "prepare": "sentinel p",
    "stop": "sentinel q",
    "preversion": "sentinel r",
}
PACKAGE_COMMANDS = [
    *("npm --loglevel warn run ship", "npm --prefix . run ship", "npm run ship --prefix=."),
    *("npm -C . run ship", "npm --cache /tmp/c run-script ship", "npm -w sub run ship"),
    *("npm install --no-audit", "npm ci", "npm i", "npm add left-pad", "npm restart"),
    *("npm version minor", "npm pack --dry-run", "npm rebuild", "npm link", "npm cit"),
    *("yarn ship", "yarn --cwd . ship", "yarn", "yarn add left-pad", "yarn --cwd sub ship"),
    *("pnpm ship", "pnpm --filter . ship", "pnpm -C . ship", "pnpm --dir=. run ship"),
    *("pnpm i", "pnpm --filter=./ run ship", "bun ship", "bun --cwd . run ship"),
    *("bun install", "bun add left-pad", "deno task ship", "deno task --cwd . ship"),
    *("deno task lint", "node --run ship", "corepack pnpm ship", "corepack yarn"),
]


@pytest.fixture
def package(tree: Tree) -> Tree:
    (tree.ws / "package.json").write_text(json.dumps({"scripts": SCRIPTS}))
    (tree.ws / "sub").mkdir()
    (tree.ws / "sub" / "package.json").write_text(json.dumps({"scripts": SCRIPTS}))
    tasks = {"lint": {"command": "true", "dependencies": ["ship"]}}
    (tree.ws / "deno.json").write_text(json.dumps({"tasks": tasks}))
    return tree


@pytest.mark.parametrize("command", PACKAGE_COMMANDS)
def test_package_scripts_that_run_a_denied_program_are_denied(
    command: str, package: Tree, make_ctx: ContextFactory
) -> None:
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)
        assert "Bash(sentinel *)" in verdict.reason


UNREAD = [
    ("npm run build --script-shell ./tools/runner.sh", {}),
    ("pnpm --config.script-shell=./tools/runner.sh build", {}),
    ("npm run build", {".npmrc": "registry=https://r.example\nscript-shell=./tools/runner.sh\n"}),
    ("npm test", {".npmrc": "node-options=--require ./hook.js\n"}),
    ("yarn build", {".yarnrc.yml": "yarnPath: tools/yarn.cjs\n"}),
    ("yarn build", {".yarnrc": 'yarn-path "./tools/yarn.js"\n'}),
    ("bun run build", {"bunfig.toml": 'preload = ["./tools/p.ts"]\n'}),
    ("bun run build", {"bunfig.toml": '[run]\nshell = "./tools/runner.sh"\n'}),
    ("pnpm install", {".pnpmfile.cjs": "module.exports = {hooks: {}}\n"}),
    # A package no workspace names (the scripts of those it names: test_workspace_scripts).
    ("pnpm --filter web build", {}),
    ("npm -w web run build", {}),
]


@pytest.mark.parametrize(("command", "files"), UNREAD)
def test_what_changes_how_scripts_run_is_code_not_read(
    command: str, files: dict[str, str], package: Tree, make_ctx: ContextFactory
) -> None:
    (package.ws / "package.json").write_text(json.dumps({"scripts": {"build": "true"}}))
    package.write(files)
    default = decide("Bash", {"command": command}, make_ctx(RULES))
    assert default.behavior == "ask", (command, default.reason)
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "deny", (command, bypass.reason)


ORDINARY_MAKEFILE = """\
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
MAKEFLAGS += --no-print-directory -r
VERSION := $(shell git describe --always)
CFLAGS ?= -O2
.PHONY: all test
all: prog
prog: main.o
\t$(CC) $(CFLAGS) -o $@ $^
%.o: %.c
\t$(CC) $(CFLAGS) -c $< \\
\t  -o $@
test:
\t@echo $(VERSION)
"""


@pytest.mark.parametrize(
    ("command", "files"),
    [
        ("make test", {"Makefile": ORDINARY_MAKEFILE}),
        ("make", {"Makefile": ORDINARY_MAKEFILE}),
        ("make -C sub", {"sub/Makefile": "all:\n\techo hi\n"}),
        ("make -n ship", {"Makefile": "ship:\n\tsentinel x\n"}),
        ("npm test", {".npmrc": "registry=https://r.example\nsave-exact=true\n"}),
        ("npm run build", {".npmrc": "@acme:registry=https://r.example\n"}),
        ("npm --silent run build", {}),
        ("yarn build", {".yarnrc.yml": "nodeLinker: node-modules\n"}),
        ("pnpm run build", {}),
        ("bun run build", {"bunfig.toml": '[install]\nexact = true\n[run]\nshell = "system"\n'}),
        ("npm ls --workspaces", {}),
    ],
)
def test_ordinary_projects_stay_allowed(
    command: str, files: dict[str, str], package: Tree, make_ctx: ContextFactory
) -> None:
    (package.ws / "package.json").write_text(json.dumps({"scripts": {"build": "true"}}))
    package.write(files)
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command", ["npm run ship", "yarn ship", "pnpm ship", "bun run ship", "node --run ship"]
)
def test_a_package_manager_finds_its_package_json_up_the_tree(
    command: str, package: Tree, make_ctx: ContextFactory
) -> None:
    below = package.ws / "lib" / "deep"
    below.mkdir(parents=True)
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode, cwd=below))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


def test_variables_that_expand_without_bound_are_not_allowed(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    # Each level holds the one below twelve times: 12**8 copies if followed to the end.
    (tree.ws / "Makefile").write_text("A = " + "$(A)" * 12 + "\nall:\n\techo $(A)\n")
    default = decide("Bash", {"command": "make"}, make_ctx(RULES))
    assert default.behavior != "allow", default.reason
    assert "expand too far" in default.reason or "too large to judge" in default.reason
