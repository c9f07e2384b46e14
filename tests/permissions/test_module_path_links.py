"""Module paths given to a test runner (`PYTHONPATH=src pytest`) are the workspace's code only
where they lead inside it: each directory is resolved as the file tools resolve a path, so a
symlink, or a directory below one, leading out of the workspace is a module path that loads
code from elsewhere (asked)."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(pytest *)", "Bash(python3 *)"]}}
DENYING = {"permissions": {**RULES["permissions"], "deny": ["Bash(curl *)"]}}


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


@pytest.mark.parametrize(
    "command",
    [
        "PYTHONPATH=src python3 src/app.py",
        "PYTHONPATH=src python3 -c 'print(1)'",
        "PYTHONPATH=. pytest -q",
        "PYTHONPATH=src:. python3 -m pytest -q",
        "PYTHONPATH=::src python3 src/app.py",
        "env PYTHONPATH=src python3 src/app.py",
        "PYTHONPATH=inner python3 -m src.app",
    ],
)
def test_workspace_module_paths_are_judged_as_the_command_without_them(
    command: str, linked: Tree, make_ctx: ContextFactory
) -> None:
    # With a deny rule, a module path the engine cannot see through was denied ("may run what
    # Bash(curl *) forbids") for any program but a test runner: the workspace's own code adds
    # nothing the command does not already run.
    verdict = decide("Bash", {"command": command}, make_ctx(DENYING))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "PYTHONPATH=out python3 src/app.py",
        "env PYTHONPATH=src/up python3 -c 1",
        "PYTHONPATH=.venv/lib/python3.12/site-packages python3 src/app.py",
        "PYTHONPATH=node_modules/x python3 src/app.py",
        "ln -s /tmp made && PYTHONPATH=made python3 src/app.py",
        "PYTHONPATH=$X python3 src/app.py",
    ],
)
def test_other_module_paths_are_still_asked(
    command: str, linked: Tree, make_ctx: ContextFactory
) -> None:
    (linked.ws / ".venv" / "lib" / "python3.12" / "site-packages").mkdir(parents=True)
    (linked.ws / "node_modules" / "x").mkdir(parents=True)
    verdict = decide("Bash", {"command": command}, make_ctx(DENYING))
    assert verdict.behavior != "allow", (command, verdict.reason)
