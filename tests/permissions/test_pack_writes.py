"""Where package managers write the tarball they pack (`pack_writes`): `bun pm pack
--destination DIR` / `--filename FILE`, `npm pack --pack-destination DIR` (any prefix), `pnpm
pack --pack-destination/--out`, `yarn pack --filename/-o`. A rule allowing the program covers
a pack into the workspace; one outside it, or into a protected path, is asked."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": [f"Bash({p} *)" for p in ("npm", "pnpm", "yarn", "bun")]}}


@pytest.mark.parametrize(
    "command",
    [
        "bun pm pack --destination {outside}",
        "bun pm pack --destination={outside}",
        "bun pm pack --destination ../outside",
        "bun pm pack --filename {outside}/x.tgz",
        "bun pm pack --filename=.git/hooks/pre-commit",
        "bun --cwd sub pm pack --destination {outside}",
        "npm pack --pack-destination {outside}",
        "npm pack --pack-destination={outside}",
        "npm pack --pack-dest {outside}",
        "npm --pack-destination {outside} pack",
        "pnpm pack --pack-destination {outside}",
        "pnpm pack --out {outside}/x.tgz",
        "yarn pack --filename {outside}/x.tgz",
        "yarn pack -o {outside}/x.tgz",
        "yarnpkg pack --out {outside}/x.tgz",
    ],
)
def test_a_pack_outside_the_workspace_is_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    text = tree.fill(command)
    verdict = decide("Bash", {"command": text}, make_ctx(RULES))
    assert verdict.behavior == "ask", (text, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "bun pm pack",
        "bun pm pack --destination dist",
        "bun pm pack --filename dist/x.tgz",
        "npm pack --pack-destination dist",
        "pnpm pack --out dist/x.tgz",
        "yarn pack -o dist/x.tgz",
    ],
)
def test_a_pack_into_the_workspace_is_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"package.json": '{"name": "p", "version": "1.0.0"}\n'})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
