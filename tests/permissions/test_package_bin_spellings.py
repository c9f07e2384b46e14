"""A program package runners find in `node_modules/.bin`, in every spelling of the runner's
words: global options before the command (`npm --silent exec`, `--loglevel X`), the
directory it starts in (`--prefix`, `-w`, `--dir`, `-C`, `--cwd`, before or after `exec`),
npm's abbreviation `exe`, a shell command line run with the same PATH (`-c`, `--call`), bun's
`run NAME` and `bun NAME` falling back to a bin, `corepack`; every package's PATH (`-ws`,
`-r`, `--filter`) is code not read. The bin is judged as the file run by its path."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RUNNERS = ("npm", "npx", "pnpm", "yarn", "bun", "bunx", "corepack")
RULES = {
    "permissions": {
        "allow": [f"Bash({r} *)" for r in RUNNERS],
        "deny": ["Bash(sentinel *)"],
    }
}
EVIL = "#!/bin/sh\nsentinel ran\n"


@pytest.fixture
def bins(tree: Tree) -> Tree:
    tree.write(
        {
            "package.json": '{"name": "p", "scripts": {"build": "true"}}\n',
            "node_modules/.bin/evilbin": EVIL,
            "node_modules/.bin/tsc": "#!/bin/sh\nexit 0\n",  # `npm exec tsc` runs it
            "pkgs/f/package.json": '{"name": "f"}\n',
            "pkgs/f/node_modules/.bin/jest": EVIL,
        }
    )
    for name in (
        "node_modules/.bin/evilbin",
        "node_modules/.bin/tsc",
        "pkgs/f/node_modules/.bin/jest",
    ):
        (tree.ws / name).chmod(0o755)
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "npm --prefix pkgs/f exec jest",
        "npm -w pkgs/f exec jest",
        "npm exec --workspace=pkgs/f jest",
        "npm exec --prefix=pkgs/f jest",
        "npx --prefix pkgs/f jest",
        "npx -w pkgs/f jest",
        "npm exec -c evilbin",
        "npm exec --call=evilbin",
        "npx -c 'evilbin --x'",
        "npx --call 'true && evilbin'",
        "npm --silent exec evilbin",
        "npm -s exec evilbin",
        "npm --loglevel silent exec evilbin",
        "npm exe evilbin",
        "pnpm --dir pkgs/f exec jest",
        "pnpm -C pkgs/f jest",
        "yarn --cwd pkgs/f jest",
        "bun run evilbin",
        "bun evilbin",
        "bun --cwd pkgs/f x jest",
        "corepack pnpm exec evilbin",
        "corepack yarn evilbin",
    ],
)
def test_a_bin_found_on_the_runners_path_is_judged(
    command: str, bins: Tree, make_ctx: ContextFactory
) -> None:
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


@pytest.mark.parametrize(
    "command", ["npm exec -ws -- jest", "pnpm -r exec jest", "pnpm --filter f exec jest"]
)
def test_every_packages_path_is_looked_through(
    command: str, bins: Tree, make_ctx: ContextFactory
) -> None:
    # Each package's `node_modules/.bin` is read (runner_argv.py): the one whose jest runs
    # what a rule denies is found, in every mode.
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


@pytest.mark.parametrize(
    "command",
    ["npx prettier --check .", "npm exec -- tsc --noEmit", "bun run build", "bun test", "npm ls"],
)
def test_ordinary_runs_stay_allowed(command: str, bins: Tree, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
