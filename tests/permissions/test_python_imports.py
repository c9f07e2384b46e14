"""Python imports a module it is told to by name from the directory it runs in first
(`-m MODULE`, through `runpy` or `cProfile -m`, a parent package shadowed by a file), past
Python's valued options (`-W`, `-X`): such a module file is code run,
judged as `python3 FILE` is. One the same command writes is code not read (denied in
bypassPermissions mode where a Bash deny rule exists); `-I` and `-P` leave the directory
off sys.path. Each spelling is first run with the real interpreter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(python3 *)", "Bash(printf *)"], "deny": ["Bash(curl *)"]}}
WRITE = 'printf \'open("RAN", "w")\' > {file}; '
IMPORTING = [
    ("m.py", "python3 -m m"),
    ("m.py", "python3 -B -m m"),
    ("m.py", "python3 -X dev -m m"),
    ("m.py", "python3 -m cProfile -m m"),
    ("m.py", "python3 -m runpy m"),
    ("m.py", "python3 -Wignore -m m"),
    ("m.py", "python3 -X importtime -m m"),
    ("json.py", "python3 -m json.tool /dev/null"),
    ("m.py", "python3 -c 'import m'"),
    ("m.py", "python3 -Bc 'from m import x'"),
    ("m.py", "python3 -c 'import os, m.sub'"),
    ("pkg/__main__.py", "mkdir -p pkg; python3 -m pkg"),
    ("pkg/__init__.py", "mkdir -p pkg; python3 -m pkg.sub"),
    # modules named through the module's own arguments, and literal code run by exec
    ("m.py", "python3 -m unittest m"),
    ("m.py", "python3 -munittest -v m"),
    ("m.py", "python3 -m unittest -k x m.py"),
    ("mq.py", "python3 -m unittest discover -p mq.py"),
    ("mq.py", "python3 -m unittest discover . 'mq.py'"),
    ("m.py", "python3 -m timeit -n1 -s 'import m' pass"),
    ("m.py", "python3 -m timeit -n1 --setup='import m' pass"),
    ("m.py", "python3 -m timeit -n1 -r1 'import m'"),
    ("m.py", "python3 -c \"exec('import m')\""),
]


@pytest.mark.parametrize(("file", "command"), IMPORTING)
def test_python_really_imports_from_its_directory(file: str, command: str, tmp_path: Path) -> None:
    line = command.replace("python3", sys.executable)
    if "mkdir" in line:
        line = line.replace("; ", "; " + WRITE.format(file=file), 1)
    else:
        line = WRITE.format(file=file) + line
    subprocess.run(line, shell=True, cwd=tmp_path, capture_output=True, check=False)
    assert (tmp_path / "RAN").exists(), line


@pytest.mark.parametrize(("file", "command"), IMPORTING)
def test_a_module_the_command_writes_is_code_not_read(
    file: str, command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    written = WRITE.format(file=file) + command.rpartition("; ")[2]
    verdict = decide("Bash", {"command": written}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior == "deny", (written, verdict.reason)
    assert "which this command writes" in verdict.reason
    after = f"{command.rpartition('; ')[2]}; {WRITE.format(file=file).rstrip('; ')}"
    verdict = decide("Bash", {"command": after}, make_ctx(RULES))
    assert verdict.behavior == "ask", (after, verdict.reason)


DISCOVERED = [
    ("mq.py", "python3 -m unittest discover -s . -p 'mq.*'"),
    ("test_q.py", "python3 -m unittest discover"),
    ("test_q.py", "python3 -m unittest discover -v -t ."),
    ("d/test_q.py", "mkdir -p d; python3 -m unittest discover -s d"),
    ("d/test_q.py", "mkdir -p d; python3 -m unittest discover d"),
]


@pytest.mark.parametrize(("file", "command"), DISCOVERED)
def test_python_really_discovers_tests_by_pattern(file: str, command: str, tmp_path: Path) -> None:
    test_python_really_imports_from_its_directory(file, command, tmp_path)


@pytest.mark.parametrize(("file", "command"), DISCOVERED)
def test_a_discovered_module_the_command_writes_first_is_code_not_read(
    file: str, command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    """unittest's discovery imports the files its pattern matches in the start directory: one
    the same command writes before is code not read."""
    written = command.replace("python3", WRITE.format(file=file) + "python3", 1)
    verdict = decide("Bash", {"command": written}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior == "deny", (written, verdict.reason)
    assert "which this command writes" in verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "python3 -I -m m",
        "python3 -P -m m",
        "python3 -IB -m m",
        "python3 -m m",  # nothing written: the workspace's own module, as `python3 m.py`
        "python3 -W ignore::m.Warn -c 1",  # imported before the directory is on sys.path
        "python3 -m pytest -q",
        "python3 -I -c 'import m'",
        "python3 -c 'import os; print(1)'",
    ],
)
def test_no_module_written_where_python_looks(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    line = (
        f"{WRITE.format(file='m.py')}{command}" if " -I" in command or "-P" in command else command
    )
    verdict = decide("Bash", {"command": line}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior == "allow", (line, verdict.reason)


def test_a_pycache_prefix_outside_loads_code_not_seen(tree: Tree, make_ctx: ContextFactory) -> None:
    command = f"python3 -X pycache_prefix={tree.outside} -m json.tool /dev/null"
    verdict = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert verdict.behavior == "deny", verdict.reason
    assert verdict.reason is not None
    assert "outside the workspace" in verdict.reason


def test_a_module_linked_outside_is_code_not_seen(tree: Tree, make_ctx: ContextFactory) -> None:
    (tree.outside / "x.py").write_text("import os\n")
    (tree.ws / "lm.py").symlink_to(tree.outside / "x.py")
    verdict = decide("Bash", {"command": "python3 -m lm"}, make_ctx(RULES))
    assert verdict.behavior == "ask", verdict.reason
