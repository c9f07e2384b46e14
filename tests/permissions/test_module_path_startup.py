"""A directory of the command's PYTHONPATH holding `sitecustomize` or `usercustomize`: Python's
`site` imports it before any program runs, so every Python program the command starts runs
it (`PYTHONPATH=src pip --version`): not read-only, and asked where a Bash deny rule exists,
whatever program the line names."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

DENYING = {
    "permissions": {
        "allow": ["Bash(pip *)", "Bash(make *)", "Bash(pytest *)"],
        "deny": ["Bash(curl *)"],
    }
}
STARTUP = [
    "src/sitecustomize.py",
    "src/usercustomize.py",
    "src/sitecustomize/__init__.py",
    "src/sitecustomize.pyc",
]
COMMANDS = [
    "PYTHONPATH=src pip --version",
    "PYTHONPATH=src pip3 -V",
    "PYTHONPATH=src:. pip list",
    "export PYTHONPATH=src; pip --version",
    "env PYTHONPATH=src pip --version",
    "PYTHONPATH=src make -n",
]


@pytest.mark.parametrize("module", STARTUP)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_startup_module_on_the_module_path_is_asked_under_a_deny_rule(
    command: str, module: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({module: "import os; os.system('curl x')\n", "Makefile": "all:\n\ttrue\n"})
    verdict = decide("Bash", {"command": command}, make_ctx(DENYING))
    assert verdict.behavior == "ask", (command, verdict.reason)
    assert "start-up" in verdict.reason


@pytest.mark.parametrize("command", ["PYTHONPATH=src pip --version", "PYTHONPATH=src cat a"])
def test_a_startup_module_makes_a_read_only_command_asked_without_rules(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"src/sitecustomize.py": "print(1)\n", "a": "x\n"})
    verdict = decide("Bash", {"command": command}, make_ctx({}))
    assert verdict.behavior == "ask", (command, verdict.reason)


@pytest.mark.parametrize("command", ["PYTHONPATH=src pip --version", "PYTHONPATH=src pytest"])
def test_a_module_path_without_one_is_judged_as_before(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"src/mod.py": "print(1)\n", "src/x.pth": "import os\n"})
    verdict = decide("Bash", {"command": command}, make_ctx(DENYING))
    assert verdict.behavior == "allow", (command, verdict.reason)
