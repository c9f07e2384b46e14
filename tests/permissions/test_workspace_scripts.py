"""A package manager running the scripts of a workspace's packages is judged by those
scripts' text, as `npm run S` is by the root's: `npm -w X`, `npm --workspaces`, `pnpm
--filter X`, `pnpm -r`, `pnpm -C DIR`, `yarn workspace X`, `yarn workspaces foreach`, `bun
--filter X` find the packages the root's package.json `workspaces` or pnpm-workspace.yaml
declares (by name or directory, `!` globs left out). A selector naming no package it can
tell (a glob, a name no package has) is asked. Before, the scripts of another package were
never judged by their text: every such run was asked where a Bash deny rule existed,
allowed otherwise, and a denied script in the named package ran under `Bash(npm *)`."""

from __future__ import annotations

import json

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(npm *)", "Bash(pnpm *)", "Bash(yarn *)", "Bash(bun *)"],
        "deny": ["Read(./.env)", "Bash(sentinel *)"],
    }
}
APP = {"build": "true", "test": "true", "leak": "cat ../../.env", "ship": "sentinel a"}
LIB = {"build": "true", "test": "sentinel b"}
HIDDEN = {"build": "sentinel c"}


@pytest.fixture(params=["package.json", "pnpm-workspace.yaml", "yarn-object"])
def monorepo(request: pytest.FixtureRequest, tree: Tree) -> Tree:
    """A workspace of packages/app and packages/lib; packages/hidden left out by `!`."""
    globs = ["packages/*", "!packages/hidden"]
    root: dict[str, object] = {"name": "root", "private": True, "scripts": {"build": "true"}}
    if request.param == "package.json":
        root["workspaces"] = globs
    elif request.param == "yarn-object":
        root["workspaces"] = {"packages": globs}
    else:
        tree.write({"pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n  - '!packages/hidden'\n"})
    tree.write({"package.json": json.dumps(root)})
    for directory, name, scripts in (
        ("app", "@m/app", APP),
        ("lib", "@m/lib", LIB),
        ("hidden", "@m/hidden", HIDDEN),
    ):
        tree.write(
            {f"packages/{directory}/package.json": json.dumps({"name": name, "scripts": scripts})}
        )
    return tree


@pytest.mark.parametrize(
    ("command", "runs", "denied"),
    [
        ("npm -w @m/app run ship", "preship ship postship", "`sentinel a`"),
        ("npm --workspace=@m/lib test", "pretest test posttest", "`sentinel b`"),
        ("npm -w packages/app run ship", "preship ship postship", "`sentinel a`"),
        ("npm --workspace ./packages/lib run test", "pretest test posttest", "`sentinel b`"),
        ("npm --workspaces test", "pretest test posttest", "`sentinel b`"),
        ("npm -ws run test", "pretest test posttest", "`sentinel b`"),
        ("npm run test --workspaces", "pretest test posttest", "`sentinel b`"),
        ("pnpm --filter @m/app run ship", "preship ship postship", "`sentinel a`"),
        ("pnpm --filter=@m/app ship", "preship ship postship", "`sentinel a`"),
        ("pnpm -F @m/lib test", "pretest test posttest", "`sentinel b`"),
        ("pnpm --filter ./packages/lib test", "pretest test posttest", "`sentinel b`"),
        ("pnpm -r run test", "pretest test posttest", "`sentinel b`"),
        ("pnpm --recursive test", "pretest test posttest", "`sentinel b`"),
        ("pnpm -C packages/app ship", "preship ship postship", "`sentinel a`"),
        ("yarn workspace @m/app run ship", "preship ship postship", "`sentinel a`"),
        ("yarn workspace @m/lib test", "pretest test posttest", "`sentinel b`"),
        ("yarn workspaces foreach -A run test", "pretest test posttest", "`sentinel b`"),
        ("yarn workspaces foreach --all -pt run test", "pretest test posttest", "`sentinel b`"),
        (
            "yarn workspaces foreach --include '@m/*' run test",
            "pretest test posttest",
            "`sentinel b`",
        ),
        ("yarn workspaces run test", "pretest test posttest", "`sentinel b`"),
        ("bun --filter @m/app run ship", "preship ship postship", "`sentinel a`"),
        ("bun run --filter @m/lib test", "pretest test posttest", "`sentinel b`"),
    ],
)
def test_a_denied_script_of_a_selected_package_is_denied(
    command: str, runs: str, denied: str, monorepo: Tree, make_ctx: ContextFactory
) -> None:
    manager = command.split()[0]
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    reason = f"{manager} runs {runs} from package.json: {denied} is denied by Bash(sentinel *)"
    assert verdict == Decision("deny", "Bash(sentinel *)", reason), command


@pytest.mark.parametrize(
    "command",
    ["npm -w @m/app run leak", "pnpm --filter @m/app leak", "yarn workspace @m/app leak"],
)
def test_a_script_reading_a_denied_file_from_its_package_is_denied(
    command: str, monorepo: Tree, make_ctx: ContextFactory
) -> None:
    manager = command.split()[0]
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    reason = (
        f"{manager} runs preleak leak postleak from package.json: "
        f"reading {monorepo.ws / '.env'} is denied by Read(./.env)"
    )
    assert verdict == Decision("deny", "Read(./.env)", reason), command


@pytest.mark.parametrize(
    ("command", "selector"),
    [
        ("pnpm --filter '@m/*' build", "@m/*"),
        ("pnpm --filter '...@m/app' build", "...@m/app"),
        ("pnpm --filter '[origin/main]' build", "[origin/main]"),
        ("npm -w @m/hidden run build", "@m/hidden"),
        ("npm -w nosuch run build", "nosuch"),
        ("yarn workspace @m/nosuch build", "@m/nosuch"),
        ("bun --filter 'packages/*' run build", "packages/*"),
    ],
)
def test_a_selector_naming_no_known_package_is_asked(
    command: str, selector: str, monorepo: Tree, make_ctx: ContextFactory
) -> None:
    manager = command.split()[0]
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    reason = (
        f"{manager}: cannot tell which packages {selector!r} selects; "
        "it may run what deny rule Bash(sentinel *) covers"
    )
    assert verdict == Decision("ask", None, reason), command


@pytest.mark.parametrize(
    "command",
    [
        "npm -w @m/app run build",
        "npm --workspaces run build",
        "pnpm --filter @m/lib build",
        "pnpm -r build",
        "yarn workspace @m/app test",
        "yarn workspaces foreach -A run build",
        "bun --filter @m/app run build",
    ],
)
def test_harmless_scripts_of_selected_packages_stay_allowed(
    command: str, monorepo: Tree, make_ctx: ContextFactory
) -> None:
    manager = command.split()[0]
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    rule = f"Bash({manager} *)"
    assert verdict == Decision("allow", rule, f"allowed by {rule}"), command
