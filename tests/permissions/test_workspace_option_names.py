"""npm's workspace settings are read under every name its option parser (nopt) gives them:
the shorthand `--ws` (two dashes as one), `--ws=true`, before the script or after it, and
`npm test --ws`; `--ws=false` selects none. Before,
`npm run build --ws` ran every package's script unjudged (a script reading .env ran under
`Bash(npm *)`). A pnpm selector naming two packages of one name judges both (before, the
first listed only)."""

from __future__ import annotations

import json

import pytest

from tether.permissions import Decision, decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(npm *)"], "deny": ["Bash(sentinel *)"]}}


@pytest.fixture
def monorepo(tree: Tree) -> Tree:
    """A workspace whose package lib's test and build scripts run a denied command."""
    root = {"name": "root", "private": True, "workspaces": ["packages/*"]}
    scripts = {"build": "sentinel b", "test": "sentinel b"}
    tree.write(
        {
            "package.json": json.dumps({**root, "scripts": {"build": "true", "test": "true"}}),
            "packages/lib/package.json": json.dumps({"name": "lib", "scripts": scripts}),
        }
    )
    return tree


@pytest.mark.parametrize(
    ("command", "runs"),
    [
        ("npm run build --ws", "prebuild build postbuild"),
        ("npm run build --ws=true", "prebuild build postbuild"),
        ("npm --ws run build", "prebuild build postbuild"),
        ("npm test --ws", "pretest test posttest"),
    ],
)
def test_every_name_of_the_workspace_settings_selects_packages(
    command: str, runs: str, monorepo: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    reason = f"npm runs {runs} from package.json: `sentinel b` is denied by Bash(sentinel *)"
    assert verdict == Decision("deny", "Bash(sentinel *)", reason), command


@pytest.mark.parametrize("command", ["npm run build --ws=false", "npm run build --no-workspaces"])
def test_workspaces_set_false_runs_the_root_script(
    command: str, monorepo: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict == Decision("allow", "Bash(npm *)", "allowed by Bash(npm *)"), command


@pytest.mark.parametrize(
    "command", ["pnpm --filter dup run build", "pnpm -F dup build", "pnpm run --filter dup build"]
)
@pytest.mark.parametrize("denied_in", ["a", "b"])  # whichever the directory lists first
def test_every_package_of_a_shared_name_is_judged(
    command: str, denied_in: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write(
        {
            "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
            "package.json": json.dumps({"name": "root", "private": True}),
        }
    )
    for directory in ("a", "b"):
        build = "sentinel b" if directory == denied_in else "true"
        package = {"name": "dup", "scripts": {"build": build}}
        tree.write({f"packages/{directory}/package.json": json.dumps(package)})
    rules = {"permissions": {"allow": ["Bash(pnpm *)"], "deny": ["Bash(sentinel *)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rules))
    reason = (
        "pnpm runs prebuild build postbuild from package.json: "
        "`sentinel b` is denied by Bash(sentinel *)"
    )
    assert verdict == Decision("deny", "Bash(sentinel *)", reason), command
