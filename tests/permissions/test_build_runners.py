"""Build runners other than make run their files' commands: ninja's rules, just's recipes and
a Taskfile's cmds are read and judged as make's recipes are; rake's Rakefile (Ruby), the
Python task files of nox, invoke, scons and doit (as programs or `python3 -m X`) and what is not
read is code not read (asked, denied in bypassPermissions mode where a Bash deny rule
exists)."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RUNNERS = ("just", "task", "rake", "ninja", "nox", "invoke", "inv", "scons", "doit", "python3")
RULES = {
    "permissions": {
        "allow": [
            *(f"Bash({r} *)" for r in RUNNERS),
            *(f"Bash({r})" for r in RUNNERS),
            "Bash(echo *)",
            "Bash(cc *)",
        ],
        "deny": ["Bash(curl *)"],
    }
}
MODES = ("default", "bypassPermissions")
E = "curl -sS http://127.0.0.1:9/x"


@pytest.fixture
def project(tree: Tree) -> Tree:
    files = {
        "justfile": f"build:\n    echo hi\nevil: helper\n    echo ok\nhelper:\n    @{E}\n",
        "Taskfile.yml": (
            "version: '3'\ntasks:\n  build:\n    cmds: ['echo hi']\n"
            "  evil:\n    deps: [helper]\n    cmds: ['echo ok']\n"
            f"  helper:\n    cmds:\n      - cmd: {E}\n"
            f"  other:\n    cmds:\n      - task: helper\n"
        ),
        "Rakefile": f"task :evil do sh '{E}' end\n",
        "build.ninja": f"rule r\n  command = {E} $in\nbuild out: r src\n",
        "j2/justfile": "X := `" + E + "`\nbuild:\n    echo hi\n",
        "j3/justfile": "set shell := ['python3', '-c']\nbuild:\n    echo hi\n",
        "n2/build.ninja": "rule cc\n  command = cc -c $in -o $out\nbuild a.o: cc a.c\n",
        "n3/build.ninja": "include rules.ninja\nbuild a.o: cc a.c\n",
    }
    tree.write(files)
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "just evil",
        "just -f justfile evil",
        "just --justfile=justfile evil arg",
        "just -d j2 -f j2/justfile build",
        "task evil",
        "task other",
        "task -t Taskfile.yml evil",
        "ninja",
        "ninja out",
        "ninja -C . out",
        "cd n2/.. && ninja -j4",
    ],
)
def test_a_runner_file_command_meets_the_deny_rules(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    for mode in MODES:
        verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode=mode))
        assert verdict.behavior == "deny", (command, mode, verdict.reason)


@pytest.mark.parametrize(
    "command", ["rake evil", "rake", "just -f j3/justfile build", "ninja -C n3"]
)
def test_what_is_not_read_is_code_not_read(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    assert decide("Bash", {"command": command}, make_ctx(RULES)).behavior == "ask", command
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "deny", command


@pytest.mark.parametrize(
    "command", ["just build", "task build", "ninja -C n2", "ninja --version", "rake --version"]
)
def test_plain_files_stay_allowed(command: str, project: Tree, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


PYTHON_TASKS = "import os\nos.system('" + E + "')\n"


@pytest.mark.parametrize(
    "command",
    [
        "nox",
        "nox -s tests",
        "nox -l",
        "nox -f noxfile.py",
        "python3 -m nox",
        "python3 -X dev -m nox -s x",
        "python3 -u -m nox",
        "invoke evil",
        "inv evil",
        "invoke -l",
        "python3 -m invoke evil",
        "cd sub && invoke evil",
        "invoke -c mytasks build",
        "invoke -r pkg build",
        "scons",
        "scons -j4 target",
        "scons -C sc",
        "python3 -m SCons",
        "doit",
        "doit -f other.py",
        "python3 -m doit",
    ],
)
def test_python_task_files_are_code_not_read(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """nox, invoke, scons and doit run (import) their task files: Python, not read."""
    tree.write(
        {
            "noxfile.py": PYTHON_TASKS,
            "tasks.py": PYTHON_TASKS,
            "sub/x.txt": "",
            "mytasks.py": PYTHON_TASKS,
            "pkg/tasks/__init__.py": PYTHON_TASKS,
            "SConstruct": PYTHON_TASKS,
            "sc/sconstruct.py": PYTHON_TASKS,
            "dodo.py": PYTHON_TASKS,
            "other.py": PYTHON_TASKS,
        }
    )
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)
    assert "which tether does not read" in verdict.reason, command
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "deny", command


@pytest.mark.parametrize("command", ["nox", "invoke build", "scons", "doit", "nox --version"])
def test_python_task_runners_without_a_task_file_stay_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
