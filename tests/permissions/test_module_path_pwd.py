"""`PYTHONPATH=$PWD/src pytest`: `$PWD` and `$(pwd)` starting a module path's entry are the
directory the command runs in (the Bash tool sets PWD to it, `cd` keeps it so), judged as a
relative entry is; where the command may change what they say (PWD given a value, a function
`pwd`, code run out of sight), and for any other variable, the entry stays unknown."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

DENYING = {
    "permissions": {
        "allow": ["Bash(pytest *)", "Bash(python3 *)"],
        "deny": ["Bash(curl *)", "Read(./.env)"],
    }
}


@pytest.fixture
def linked(tree: Tree) -> Tree:
    tree.write({"src/mod.py": "print(1)\n", "src/sub/x.py": "print(1)\n"})
    (tree.ws / "out").symlink_to(tree.outside)
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "PYTHONPATH=$PWD/src pytest",
        "PYTHONPATH=${PWD}/src pytest -q",
        'PYTHONPATH="$(pwd)"/src pytest',
        'PYTHONPATH="$PWD/src:$PWD" python3 -m pytest',
        "PYTHONPATH=`pwd`/src python3 src/mod.py",
        "export PYTHONPATH=$PWD/src && pytest",
        "cd src && PYTHONPATH=$PWD/sub pytest",
    ],
)
def test_module_paths_below_the_working_directory_are_allowed(
    command: str, linked: Tree, make_ctx: ContextFactory
) -> None:
    # Denied before: `$PWD` was an unknown variable, so the entry might be anywhere.
    verdict = decide("Bash", {"command": command}, make_ctx(DENYING))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "PYTHONPATH=$FOO/src pytest",
        "PYTHONPATH=$PWD/out pytest",
        "PYTHONPATH=$PWD/.. pytest",
        "PYTHONPATH=x$PWD/src pytest",
        "PYTHONPATH=$PWD$X pytest",
        "cd /tmp && PYTHONPATH=$PWD/src pytest",
        # what `$PWD` or `$(pwd)` say, changed by the command
        "PWD=/tmp; PYTHONPATH=$PWD/src pytest",
        "export PWD=/tmp; PYTHONPATH=$PWD/src pytest",
        "read -r PWD <<< /tmp; PYTHONPATH=$PWD/src pytest",
        "x=P''WD; declare -n r=$x; r=/tmp; PYTHONPATH=$PWD/src pytest",
        "unset PWD; PYTHONPATH=$PWD/src pytest",
        "for PWD in /tmp; do PYTHONPATH=$PWD/src pytest; done",
        "pwd() { echo /tmp; }; PYTHONPATH=$(pwd)/src pytest",
        "eval 'pw''d() { echo /tmp; }'; PYTHONPATH=$(pwd)/src pytest",
        "source ./env.sh; PYTHONPATH=$PWD/src pytest",
    ],
)
def test_other_module_paths_stay_held(command: str, linked: Tree, make_ctx: ContextFactory) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(DENYING))
    assert verdict.behavior != "allow", (command, verdict.reason)
