"""meson's machine files named by a relative path (`--native-file NAME`, `--cross-file=NAME`):
when its working directory holds no such file, meson looks for it in `meson/native/` (`cross/`)
below `$XDG_DATA_HOME` (`~/.local/share`) and `$XDG_DATA_DIRS` (`/usr/local/share`,
`/usr/share`), outside the workspace: code the build runs (`[binaries]`) that no rule has
seen, asked; a file of the workspace's by that name is the one read."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {"permissions": {"allow": ["Bash(meson *)"]}}


@pytest.mark.parametrize(
    "command",
    [
        # Allowed before: the name was taken as the workspace's file, which is not there.
        "meson setup build --native-file gcc.ini",
        "meson setup --cross-file=arm.ini build",
        "meson setup --cross-file arm build",
        "meson setup build --native-file sub/gcc.ini",
        "meson setup build --native-fi gcc.ini",
        "cd sub && meson setup build --native-file gcc.ini",
    ],
)
def test_a_name_the_workspace_lacks_is_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"sub/meson.build": "project('p')\n", "meson.build": "project('p')\n"})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "ask", (command, verdict.reason)
    assert "meson/" in (verdict.reason or ""), verdict.reason


def test_the_lookup_meets_read_denials(tree: Tree, make_ctx: ContextFactory) -> None:
    rules = {"permissions": {**RULES["permissions"], "deny": ["Read(~/.local/share/meson/**)"]}}
    command = "meson setup build --native-file gcc.ini"
    verdict = decide("Bash", {"command": command}, make_ctx(rules))
    assert verdict.behavior == "deny", verdict.reason


@pytest.mark.parametrize(
    "command",
    [
        "meson setup build --native-file gcc.ini",
        "meson setup --cross-file=sub/arm.ini build",
        "meson setup build",
    ],
)
def test_a_file_the_workspace_holds_is_the_one_read(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    tree.write({"gcc.ini": "[binaries]\n", "sub/arm.ini": "[binaries]\n"})
    verdict = decide("Bash", {"command": command}, make_ctx(RULES))
    assert verdict.behavior == "allow", (command, verdict.reason)


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m mesonbuild.mesonmain setup build --native-file gcc.ini",
        "python3 -m mesonbuild.mesonmain setup build --cross-file=arm.ini",
    ],
)
def test_meson_under_its_module_name_is_meson(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    # Allowed before: `mesonbuild.mesonmain` was no runner's module.
    tree.write({"meson.build": "project('p')\n"})
    rules = {"permissions": {"allow": ["Bash(meson *)", "Bash(python3 *)"]}}
    verdict = decide("Bash", {"command": command}, make_ctx(rules))
    assert verdict.behavior == "ask", (command, verdict.reason)
    assert "meson/" in (verdict.reason or ""), verdict.reason
