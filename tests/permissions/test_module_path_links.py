"""Module paths given to a test runner (`PYTHONPATH=src pytest`) are the workspace's code only
where they lead inside it: each directory is resolved as the file tools resolve a path, so a
symlink, or a directory below one, leading out of the workspace is a module path that loads
code from elsewhere (asked)."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(pytest *)", "Bash(python3 *)"]}}


@pytest.fixture
def linked(tree: Tree) -> Tree:
    (tree.outside / "mods").mkdir()
    (tree.ws / "src").mkdir(exist_ok=True)
    (tree.ws / "out").symlink_to(tree.outside / "mods")
    (tree.ws / "src" / "up").symlink_to(tree.outside)
    (tree.ws / "inner").symlink_to(tree.ws / "src")
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "PYTHONPATH=out pytest",
        "PYTHONPATH=src:out pytest -q",
        "PYTHONPATH=src/up pytest",
        "PYTHONPATH=src/up/mods python3 -m pytest",
        "PYTHONPATH=out python3 -m unittest",
        "cd src && PYTHONPATH=up pytest",
    ],
)
def test_module_paths_leading_outside_are_asked(
    command: str, linked: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    ["PYTHONPATH=src pytest", "PYTHONPATH=inner pytest -q", "PYTHONPATH=src:inner pytest"],
)
def test_module_paths_inside_the_workspace_are_allowed(
    command: str, linked: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
