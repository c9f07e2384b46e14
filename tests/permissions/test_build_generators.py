"""cmake and meson run the workspace's build code, which tether does not read: a configure
step runs CMakeLists.txt (`execute_process`) or meson.build (`run_command`), `cmake -P` a
script, and meson's build commands regenerate first. Asked where a Bash deny rule exists,
as a generator before `make` is; `cmake --build DIR` is judged as make or ninja in DIR."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(cmake *)", "Bash(meson *)", "Bash(make *)", "Bash(ninja *)"],
        "deny": ["Bash(curl *)", "Bash(touch *)"],
    }
}
NO_DENY = {"permissions": {"allow": RULES["permissions"]["allow"]}}


@pytest.fixture
def project(tree: Tree) -> Tree:
    tree.write(
        {
            "CMakeLists.txt": "project(x)\nexecute_process(COMMAND touch pwned.txt)\n",
            "script.cmake": "execute_process(COMMAND touch pwned.txt)\n",
            "meson.build": "project('x')\nrun_command('sh', '-c', 'curl x', check: false)\n",
            "build/Makefile": "all:\n\tcurl http://x\n",
            "fine/Makefile": "all:\n\ttrue\n",
            "nb/build.ninja": "rule r\n  command = curl http://x\nbuild out: r\n",
        }
    )
    return tree


@pytest.mark.parametrize(
    "command",
    [
        "cmake -P script.cmake",
        "cmake -DX=1 -P script.cmake",
        "cmake -S . -B build",
        "cmake .",
        "cmake -B build",
        "cmake --preset dev",
        "cmake --install build",
        "cmake -B b; cmake --build b",
        "meson setup b",
        "meson b",
        "meson setup b && meson compile -C b",
        "meson compile -C b",
        "meson test -C b",
    ],
)
def test_generators_running_workspace_code_are_asked(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)


@pytest.mark.parametrize("command", ["cmake --build build", "cmake --build nb --target out"])
def test_cmake_build_runs_the_generated_build_as_its_runner(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    # the Makefile's / build.ninja's recipe runs curl, which a rule denies
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "deny", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "cmake --build fine",
        "cmake --version",
        "cmake -E echo hi",
        "meson --version",
        "meson help",
    ],
)
def test_what_runs_nothing_unread_is_allowed(
    command: str, project: Tree, make_ctx: ContextFactory
) -> None:
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


def test_with_no_deny_rule_the_allow_rule_covers_it(
    project: Tree, make_ctx: ContextFactory
) -> None:
    for command in ("cmake -S . -B build", "meson setup b", "cmake -P script.cmake"):
        verdict = decide("Bash", {"command": command}, make_ctx(NO_DENY))
        assert verdict.behavior == "allow", (command, verdict.reason)
