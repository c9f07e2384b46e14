"""A build runner whose file is not there when the command is judged, in a command that may
write it first (`cmake -B build && ninja -C build`, `./configure && make`, `meson setup b &&
ninja -C b`): the text it will run cannot be read, so it is code not read (asked where a Bash
deny rule exists, denied in bypassPermissions mode). Alone, a runner with no file fails and
runs nothing."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

PROGRAMS = (
    "sh",
    "timeout",
    "cmake",
    "meson",
    "ninja",
    "make",
    "just",
    "task",
    "mkdir",
    "cd",
    "echo",
    "cp",
    "tar",
)
RULES = {
    "permissions": {
        "allow": [*(f"Bash({p} *)" for p in PROGRAMS), "Bash(./configure)", "Bash(make)"],
        "deny": ["Bash(curl *)"],
    }
}


@pytest.mark.parametrize(
    "command",
    [
        "cmake -G Ninja -S . -B build && ninja -C build",
        "cmake -S . -B build; ninja -C build all",
        "meson setup build && ninja -C build",
        "meson setup b && meson compile -C b && ninja -C b",
        "cmake -S . -B b && make -C b",
        "cmake -S . -B b && make --directory=b install",
        "mkdir -p out && cd out && cmake .. && make",
        "./configure && make",
        "./configure --prefix=/usr && make -j4",
        "cmake . && make",
        "sh -c 'cmake . && make'",
        "cmake . && timeout 60 make",
        "cmake -G Ninja . && ninja",
        "cp justfile.in justfile && just",
        "tar -xf gen.tar && task",
    ],
)
def test_a_runner_file_written_in_the_same_command_is_code_not_read(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"configure": "#!/bin/sh\ntrue\n", "CMakeLists.txt": "project(x)\n"})
    (tree.ws / "configure").chmod(0o755)
    default = decide("Bash", {"command": command}, make_ctx(RULES))
    assert default.behavior == "ask", (command, default.reason)
    bypass = decide("Bash", {"command": command}, make_ctx(RULES, mode="bypassPermissions"))
    assert bypass.behavior == "deny", (command, bypass.reason)


@pytest.mark.parametrize(
    "command",
    [
        "ninja -C build",
        "make",
        "make && echo done",
        "ninja && echo done",
        "echo 'default:' > justfile.in && just",
        "cd build2 || ninja -C missing",
        "timeout 60 make",
        "sh -c 'make'",
    ],
)
def test_runners_with_their_files_read_stay_allowed(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"Makefile": "all:\n\ttrue\n", "build.ninja": "rule r\n  command = true\n"})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)
