"""A link or rename made by code in one command, then written through (acceptEdits): the link's
target, taken from the link's own directory as the kernel does, is judged as written, whichever
call makes it (`os.symlink`, `os.link`, `Path.symlink_to`, `hardlink_to`, `rename`, `replace`)
and whatever writes through it later in the line or in a later tool call."""

from __future__ import annotations

import os

import pytest

from tether.permissions import decide

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(python3:*)", "Bash(echo:*)", "Bash(sed:*)", "Bash(cp:*)"],
        "deny": ["Edit(.github/**)"],
    }
}

DENIED = [
    'python3 -c \'import os; os.symlink(".github", "w")\' && echo x > w/workflows/ci.yml',
    'python3 -c \'import os; os.symlink("../.github/workflows", "src/w")\'; cp README.md src/w/',
    'python3 -c \'import os; os.link(".github/workflows/ci.yml", "h")\' && echo x >> h',
    'python3 -c \'from pathlib import Path; Path("src/q").symlink_to("../.github")\'',
    'python3 -c \'import pathlib; pathlib.Path("h").hardlink_to(".github/workflows/ci.yml")\'',
    'python3 -c \'import pathlib; pathlib.Path("README.md").replace(".github/workflows/x.yml")\'',
    'python3 -c \'from pathlib import Path as P; P("a").rename(".github/a.yml")\'; ls',
]


@pytest.mark.parametrize("command", DENIED)
def test_a_link_made_by_code_is_judged_by_its_target(
    command: str, make_ctx: ContextFactory
) -> None:
    decision = decide("Bash", {"command": command}, make_ctx(RULES, mode="acceptEdits"))
    assert decision.behavior == "deny", decision
    assert "Edit(.github/**)" in decision.reason


ASKED = [
    'python3 -c \'import os; os.symlink("{home}/.bashrc", "rc")\'; echo x >> rc',
    'python3 -c \'import pathlib; pathlib.Path("d").symlink_to("{home}")\'',
    "python3 -c 'import os; t = input(); os.symlink(t, \"rc\")'",
    'python3 -c \'import os; os.symlink("../../outside", "src/o")\'',
]


@pytest.mark.parametrize("command", ASKED)
def test_a_link_to_a_place_outside_is_asked(
    command: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx(RULES, mode="acceptEdits")
    decision = decide("Bash", {"command": tree.fill(command)}, ctx)
    assert decision.behavior in ("ask", "deny"), decision


def test_links_and_renames_inside_stay_allowed(make_ctx: ContextFactory) -> None:
    ctx = make_ctx(RULES, mode="acceptEdits")
    for command in (
        'python3 -c \'import os; os.symlink("app.py", "src/main.py")\'',
        'python3 -c \'from pathlib import Path; Path("a.txt").rename("b.txt")\'',
    ):
        assert decide("Bash", {"command": command}, ctx).behavior == "allow", command


def test_a_link_made_by_an_earlier_call_is_written_through_to_its_target(
    tree: Tree, make_ctx: ContextFactory
) -> None:
    """The link exists by the next tool call: an Edit or Bash write through it is judged
    by where it leads."""
    os.symlink(tree.home / ".bashrc", tree.ws / "rc")
    os.symlink("../.github/workflows", tree.ws / "src" / "wf")
    ctx = make_ctx(RULES, mode="acceptEdits")
    edit = {"file_path": str(tree.ws / "rc"), "old_string": "#", "new_string": "x"}
    assert decide("Edit", edit, ctx).behavior == "ask"
    write = {"file_path": str(tree.ws / "src" / "wf" / "ci.yml"), "content": "x"}
    assert decide("Write", write, ctx).behavior == "deny"
    assert decide("Bash", {"command": "echo x >> rc"}, ctx).behavior == "ask"
    assert decide("Bash", {"command": "cp README.md src/wf/"}, ctx).behavior == "deny"


SHELL_LINKS = [
    ("ln -s {home}/.bashrc rc; echo x >> rc", "ask"),
    ("cp -s {home}/.bashrc rc && tee -a rc < README.md", "ask"),
    ("ln .github/workflows/ci.yml h; echo x >> h", "deny"),
    ("cp -l .github/workflows/ci.yml h && echo x > h", "deny"),
    ("cd src && ln -s ../.github g && echo x > g/workflows/ci.yml", "deny"),
    ("mv homelink h2; echo x > h2/.profile", "ask"),
    ("ln -s {home}/.bashrc {outside}/l && mv {outside}/l rc && echo x >> rc", "ask"),
]


@pytest.mark.parametrize(("command", "behavior"), SHELL_LINKS)
def test_links_made_by_the_shell_are_judged_by_their_target(
    command: str, behavior: str, tree: Tree, make_ctx: ContextFactory
) -> None:
    rules = {"permissions": {"allow": ["Bash(*)"], "deny": ["Edit(.github/**)"]}}
    ctx = make_ctx(rules, mode="acceptEdits")
    decision = decide("Bash", {"command": tree.fill(command)}, ctx)
    assert decision.behavior == behavior, decision
