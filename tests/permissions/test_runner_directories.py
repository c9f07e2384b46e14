"""Package runners read as they read their command lines (runner_argv.py): the subcommand
after global options, npm's abbreviations, the package directory each option chooses, the
workspace's packages (`-r`, `--filter`, `-ws`), shell command lines run with the runner's
PATH, and corepack in front. Each spelling finds the `node_modules/.bin` program it runs."""

from __future__ import annotations

import json

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": [
            f"Bash({p} *)"
            for p in ("npm", "npx", "pnpm", "pnpx", "yarn", "bun", "bunx", "corepack")
        ],
        "deny": ["Bash(wget *)"],
    }
}


def _bin(tree: Tree, where: str, name: str) -> None:
    bins = tree.ws / where / "node_modules" / ".bin"
    bins.mkdir(parents=True, exist_ok=True)
    (bins / name).write_text("#!/bin/sh\nwget http://example.com/x\n")
    (bins / name).chmod(0o755)


@pytest.fixture
def packages(tree: Tree) -> Tree:
    """`evilbin` at the root's `node_modules/.bin`, `jest` only in `pkgs/f`'s, `deep` only in
    `apps/web/sub`'s; a harmless `tsc` at the root's."""
    tree.write(
        {
            "package.json": json.dumps({"name": "r", "workspaces": ["pkgs/*"]}),
            "pkgs/f/package.json": json.dumps({"name": "f"}),
            "apps/web/sub/package.json": json.dumps({"name": "sub"}),
        }
    )
    _bin(tree, ".", "evilbin")
    _bin(tree, "pkgs/f", "jest")
    _bin(tree, "apps/web/sub", "deep")
    (tree.ws / "node_modules" / ".bin" / "tsc").write_text("#!/bin/sh\nexit 0\n")
    (tree.ws / "node_modules" / ".bin" / "tsc").chmod(0o755)
    return tree


@pytest.mark.parametrize(
    "command",
    [
        # global options before the subcommand, in nopt's spellings
        "npm --silent exec evilbin",
        "npm -s exec evilbin",
        "npm -d exec evilbin",
        "npm --loglevel silent exec evilbin",
        "npm --loglevel=silent exec evilbin",
        "npm --some-setting-npm-adds later exec evilbin",
        "npm --registry http://r exec -- evilbin",
        # abbreviations and camelCase
        "npm exe evilbin",
        "npm exe -- evilbin --x",
        # shell command lines run with the PATH
        "npm exec -c evilbin",
        "npm exec -c 'true && evilbin'",
        "npm exec --call=evilbin",
        "npm exec --cal evilbin",
        "npx -c evilbin",
        "npx --call 'evilbin --x'",
        "pnpm exec -c 'evilbin'",
        "bun exec 'evilbin'",
        # the package directory
        "npm --prefix pkgs/f exec jest",
        "npm -C pkgs/f exec jest",
        "npm exec --prefix=pkgs/f jest",
        "npm exec --pref pkgs/f -- jest",
        "npm -w pkgs/f exec jest",
        "npm exec -w pkgs/f -- jest",
        "npm exec --workspace=pkgs/f jest",
        "npm exec --workspace f -- jest",
        "npm exec -ws -- jest",
        "npm exec --workspaces -- deep",
        "npx --prefix pkgs/f jest",
        "npx -w pkgs/f jest",
        "cd pkgs && npx --prefix f jest",
        "pnpm -r exec jest",
        "pnpm --recursive exec deep",
        "pnpm exec -r jest",
        "pnpm --dir pkgs/f exec jest",
        "pnpm -C pkgs/f jest",
        "pnpm --filter f exec jest",
        "pnpm -F f jest",
        "yarn --cwd pkgs/f jest",
        "yarn --cwd=pkgs/f run jest",
        "yarn workspace f jest",
        "yarn workspaces foreach -A run deep",
        # bun falls back to node_modules/.bin
        "bun run evilbin",
        "bun evilbin",
        "bun --cwd pkgs/f x jest",
        "bun run --cwd pkgs/f jest",
        "bun --filter f run jest",
        # corepack
        "corepack pnpm exec evilbin",
        "corepack npm@10.0.0 exec evilbin",
        "corepack yarn --cwd pkgs/f jest",
    ],
)
def test_each_spelling_finds_the_program_the_runner_runs(
    command: str, packages: Tree, make_ctx: ContextFactory
) -> None:
    for mode in ("default", "bypassPermissions"):
        verdict = _decide(packages, make_ctx, command, mode)
        assert verdict.behavior == "deny", (command, mode, verdict.reason)
        assert "wget" in verdict.reason, verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "npm --silent run build",
        "npm --prefix pkgs/f ls",
        "npm exec -- tsc --noEmit",
        "npx --prefix pkgs/f prettier --check .",
        "pnpm -r exec tsc",
        "pnpm --filter f list",
        "yarn --cwd pkgs/f install",
        "bun --cwd pkgs/f test",
        "npm ex evilbin",  # npm: "Unknown command" (exec, explain, explore)
        "npm --version",
    ],
)
def test_other_runner_commands_are_not_asked(
    command: str, packages: Tree, make_ctx: ContextFactory
) -> None:
    verdict = _decide(packages, make_ctx, command, "default")
    assert verdict.behavior == "allow", (command, verdict.reason)


def test_a_directory_known_only_as_it_runs_is_code_not_read(
    packages: Tree, make_ctx: ContextFactory
) -> None:
    verdict = _decide(packages, make_ctx, 'npm --prefix "$D" exec jest', "default")
    assert verdict.behavior != "allow", verdict.reason


def _decide(tree: Tree, make_ctx: ContextFactory, command: str, mode: str) -> Decision:
    return decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
