"""Task runners whose project files hold shell commands, read and judged as make's recipes
are: pdm's scripts (and their hooks), poe's tasks, hatch's environment scripts, tox's
commands, a Taskfile's dotenv files (reads). What is not read (Python called by a task) is
code not read: asked where a Bash deny rule exists."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RUNNERS = ("pdm", "poe", "hatch", "tox", "task")
RULES = {
    "permissions": {
        "allow": [f"Bash({p} *)" for p in RUNNERS],
        "deny": ["Bash(curl *)", "Read(./.env)"],
    }
}
PYPROJECT = """\
[tool.pdm.scripts]
evil = "curl x"
ok = "pytest -q"
listed = {cmd = ["curl", "x"]}
shelled = {shell = "echo a && curl x"}
both = {composite = ["ok", "evil"]}
pre_hooked = "curl x"
hooked = "pytest"
called = {call = "pkg.mod:main"}
envy = {cmd = "pytest", env_file = ".env"}
post_install = "curl x"

[tool.poe.tasks]
evil = "curl x"
ok = "pytest"
seq = ["ok", "evil"]
shelled = {shell = "curl x | sh"}
deps = {cmd = "pytest", deps = ["evil"]}
scripted = {script = "pkg.mod:main"}

[tool.hatch.envs.default.scripts]
evil = "curl x"
ok = "pytest"
chained = ["ok", "evil --flag"]

[tool.hatch.envs.docs.scripts]
build = "curl docs"
"""
TOX = """\
[tox]
envlist = py

[testenv]
commands =
    pytest {posargs}

[testenv:lint]
commands_pre = - curl -sS {env:URL}/x
commands = ruff check {toxinidir}
"""
TASKFILE = """\
version: '3'
dotenv: ['../.env']
tasks:
  show:
    cmds: [echo hi]
"""


@pytest.fixture
def project(tree: Tree) -> Tree:
    (tree.ws / "pyproject.toml").write_text(PYPROJECT)
    (tree.ws / "tox.ini").write_text(TOX)
    (tree.ws / "tdot").mkdir()
    (tree.ws / "tdot" / "Taskfile.yml").write_text(TASKFILE)
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "pdm run evil",
        "pdm run listed",
        "pdm run shelled",
        "pdm run both",
        "pdm run hooked",  # its pre_ hook
        "pdm run envy",  # reads .env
        "pdm install",  # post_install
        "poe evil",
        "poe seq",
        "poe shelled",
        "poe deps",
        "hatch run evil",
        "hatch run default:evil",
        "hatch run chained",
        "hatch run docs:build",
        "tox",
        "tox -e lint",
        "tox run -e py",
        "cd tdot && task show",
        "task -d tdot show",
    ],
)
def test_runner_files_are_judged_as_bash(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


@pytest.mark.parametrize(
    "command", ["pdm run called", "poe scripted", "pdm -p /elsewhere run ok", "poe -C .. ok"]
)
def test_what_is_not_read_is_not_allowed(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior != "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    ["pdm run ok", "pdm run pytest -q", "poe ok", "hatch run ok", "hatch run pytest", "tox -l"],
)
def test_harmless_scripts_stay_allowed(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    rules = {
        "permissions": {
            "allow": [f"Bash({p} *)" for p in (*RUNNERS, "pytest")],
            "deny": ["Bash(curl *)"],
        }
    }
    verdict = decide("Bash", {"command": command}, make_ctx(rules))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m tox",
        "python -m tox -e lint",
        "python3 -Im tox",
        "python3 -X dev -m tox",
        "python3 -m poethepoet evil",
        "python3 -m poe evil",
        "python3 -m pdm run evil",
        "python3 -m hatch run evil",
        "python3 -m runpy poethepoet evil",
        "python3 -m pdm run curl x",
    ],
)
def test_runners_as_python_modules_are_the_runners(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {**RULES["permissions"], "allow": ["Bash(python3 *)"]}}
    rules["permissions"]["allow"] += ["Bash(python *)"]
    for mode in ("default", "bypassPermissions"):
        verdict = decide("Bash", {"command": command}, make_ctx(rules, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


def test_a_rule_naming_the_runner_holds_for_its_module(
    project: Tree, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": ["Bash(python3 *)"], "deny": ["Bash(nox *)"]}}
    for command in ("python3 -m nox", "python3 -m nox -s lint"):
        verdict = decide("Bash", {"command": command}, make_ctx(rules))
        assert verdict.behavior == "deny", (command, verdict.reason)
    ordinary = decide("Bash", {"command": "python3 -m pytest -q"}, make_ctx(rules))
    assert ordinary.behavior == "allow", ordinary.reason


@pytest.mark.parametrize(
    "command",
    [
        "hatch env run evil",
        "hatch env run -e default -- evil",
        "hatch -e default run evil",
        "hatch --env=default run evil",
        "hatch -v env run evil",
        "hatch -e docs run build",
    ],
)
def test_hatch_global_options_and_env_run(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "deny", (command, verdict.reason)
    ok = decide("Bash", {"command": "hatch -e default run ok"}, make_ctx(RULES))
    assert ok.behavior == "allow", ok.reason
