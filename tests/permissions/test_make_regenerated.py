"""A build file a generator earlier in the line rewrites (`./configure && make` with a
Makefile already there, `cmake . && make`, `sh autogen.sh && ./configure && make`): make runs
the new one, so the one there now is not what runs (asked where a Bash deny rule exists)."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": [
            *("Bash(./configure *)", "Bash(./configure)", "Bash(make *)", "Bash(make)"),
            *("Bash(cmake *)", "Bash(sh *)", "Bash(./autogen.sh)", "Bash(autoreconf *)"),
        ],
        "deny": ["Bash(curl *)"],
    }
}


@pytest.fixture
def project(tree: Tree) -> Tree:
    tree.write(
        {
            "Makefile": "all:\n\ttrue\ntest:\n\ttrue\n",
            "configure": "#!/bin/sh\necho ok\n",
            "autogen.sh": "#!/bin/sh\necho ok\n",
            "CMakeLists.txt": "project(x)\n",
        }
    )
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "./configure && make",
        "./configure --prefix=/usr && make all",
        "sh autogen.sh && ./configure && make",
        "./autogen.sh && make",
        "cmake . && make",
        "autoreconf -fi && make",
    ],
)
def test_make_after_a_generator_is_asked(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)


@pytest.mark.parametrize("command", ["make", "make && make test", "cmake --build . && make"])
def test_make_without_a_generator_reads_the_makefile(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
