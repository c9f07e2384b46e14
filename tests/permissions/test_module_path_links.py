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


DENYING = {
    "permissions": {
        **RULES["permissions"],
        "deny": ["Bash(curl *)", "Read(./secrets/**)", "Read(./.env)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "PYTHONPATH=src python3 src/app.py",
        "PYTHONPATH=src python3 -c 'print(1)'",
        "PYTHONPATH=src python3 tests/test_a.py",
        "PYTHONPATH=src python3 -m src.app",
        "PYTHONPATH=. pytest -q",
        "PYTHONPATH=src:. python3 -m pytest -q",
        "PYTHONPATH=. python3 -c 'import src'",
        "PYTHONPATH=::src python3 src/app.py",
        "env PYTHONPATH=src python3 src/app.py",
        "PYTHONPATH=inner python3 -m src.app",
        "PYTHONPATH=src python3 -m mod",
        "cd src && PYTHONPATH=. python3 app.py",
    ],
)
def test_workspace_module_paths_are_judged_as_the_command_without_them(
    command: str, linked: Tree, make_ctx: ContextFactory
) -> None:
    # With a deny rule, any module path was denied ("may run what Bash(curl *) forbids") for
    # a program but a test runner, though the workspace's own code adds nothing the command
    # does not already run.
    linked.write({"src/mod.py": "print(1)\n"})
    verdict = decide("Bash", {"command": command}, make_ctx(DENYING))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        # leading outside, installed, hidden, not known before it runs
        "PYTHONPATH=out python3 src/app.py",
        "env PYTHONPATH=src/up python3 -c 1",
        "PYTHONPATH=.venv/lib/python3.12/site-packages python3 src/app.py",
        "PYTHONPATH=node_modules/x python3 src/app.py",
        "PYTHONPATH=.hidden python3 src/app.py",
        "ln -s /tmp made && PYTHONPATH=made python3 src/app.py",
        "PYTHONPATH=$X python3 src/app.py",
        # a directory a Read rule denies: Python reads its modules
        "PYTHONPATH=secrets python3 -c 1",
        "PYTHONPATH=src:secrets python3 src/app.py",
        # modules the command writes where Python finds them
        "echo 'import os' > src/evilmod.py && PYTHONPATH=src python3 -m evilmod",
        "cp /tmp/x.py src/sitecustomize.py; PYTHONPATH=src python3 src/app.py",
        "PYTHONPATH=src python3 src/app.py; echo x > src/sitecustomize.py",
        "PYTHONPATH=src python3 -c 'import evilmod' && cp x src/evilmod.py",
        "mkdir -p src/http && cp x src/http/server.py && PYTHONPATH=src python3 -m http.server",
    ],
)
def test_other_module_paths_are_still_held(
    command: str, linked: Tree, make_ctx: ContextFactory
) -> None:
    (linked.ws / ".venv" / "lib" / "python3.12" / "site-packages").mkdir(parents=True)
    (linked.ws / "node_modules" / "x").mkdir(parents=True)
    (linked.ws / ".hidden").mkdir()
    verdict = decide("Bash", {"command": command}, make_ctx(DENYING))
    assert verdict.behavior != "allow", (command, verdict.reason)


def test_a_module_found_along_the_path_is_judged_where_python_finds_it(
    linked: Tree, make_ctx: ContextFactory
) -> None:
    # `-m evilmod` with only src/ holding it was judged as the working directory's (nothing
    # there: runs nothing); Python loads src/evilmod.py, here a link leading outside.
    (linked.outside / "evilmod.py").write_text("import os\n")
    (linked.ws / "src" / "evilmod.py").symlink_to(linked.outside / "evilmod.py")
    for command in (
        "PYTHONPATH=src python3 -m evilmod",
        "PYTHONPATH=src python3 -c 'import evilmod'",
    ):
        verdict = decide("Bash", {"command": command}, make_ctx(DENYING))
        assert verdict.behavior != "allow", (command, verdict.reason)
