"""Paths through a process's own directory (`/proc/self/cwd/x`, `/dev/fd/../cwd/x`,
`/proc/self/fd/../root/x`) are judged as the kernel reaches them: `/dev/fd` is
`/proc/self/fd`, whose `..` is `/proc/self`, before any `..` is folded on the words; and
what `cwd/x` stands for is judged with its other names (hard links), so deny rules hold in
every mode, for the file tools and for Bash words alike."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tether.permissions import decide
from tether.permissions.process_paths import fold_process_path

from .conftest import ContextFactory, Tree

RULES = {
    "permissions": {
        "allow": ["Bash(cat *)"],
        "deny": ["Read(**/.env)", "Edit(.git/**)"],
    }
}


@pytest.fixture
def linked(tree: Tree) -> Tree:
    (tree.ws / "notes").mkdir()
    os.link(tree.ws / ".env", tree.ws / "notes" / "copy")
    return tree


@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
@pytest.mark.parametrize(
    "path",
    [
        "/proc/self/cwd/notes/copy",
        "/dev/fd/../cwd/.env",
        "/dev/fd/../cwd/notes/copy",
        "/dev/fd/./../cwd/src/../.env",
        "/proc/self/fd/../cwd/.env",
        "/proc/thread-self/fd/../cwd/notes/copy",
        "/proc/self/fd/../root{ws}/.env",
        "/dev/fd/../../self/cwd/.env",
    ],
)
def test_reads_through_a_process_directory_meet_deny_rules(
    path: str, mode: str, linked: Tree, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx(RULES, mode=mode)
    text = linked.fill(path)
    verdict = decide("Read", {"file_path": text}, ctx)
    assert verdict.behavior == "deny", (text, verdict.reason)
    bash = decide("Bash", {"command": f"cat {text}"}, ctx)
    assert bash.behavior == "deny", (text, bash.reason)


@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
def test_edits_through_dev_fd_meet_deny_rules(mode: str, make_ctx: ContextFactory) -> None:
    ctx = make_ctx(RULES, mode=mode)
    edit = {"file_path": "/dev/fd/../cwd/.git/config", "old_string": "a", "new_string": "b"}
    verdict = decide("Edit", edit, ctx)
    assert verdict.behavior == "deny", verdict.reason
    assert "/dev/cwd" not in verdict.reason


def test_a_harmless_file_through_a_process_directory_is_not_denied(
    make_ctx: ContextFactory,
) -> None:
    verdict = decide("Read", {"file_path": "/dev/fd/../cwd/README.md"}, make_ctx(RULES))
    assert verdict.behavior != "deny", verdict.reason
    assert "/proc/self/cwd/README.md" in verdict.reason


@pytest.mark.parametrize(
    ("path", "folded"),
    [
        ("/proc/self/fd/../cwd/x", "/proc/self/cwd/x"),
        ("/proc/self/../x/y", "/proc/x/y"),
        ("/proc/self/cwd/../x", "/proc/self/cwd/../x"),
        ("/proc/self/fd/3/../x", "/proc/self/fd/3/../x"),
        ("/proc/self/task/7/fd/../root/x", "/proc/self/task/7/root/x"),
        ("/proc/self/task/../task/7/cwd", "/proc/self/task/7/cwd"),
        ("/srv/x/../y", "/srv/x/../y"),
    ],
)
def test_folding_stops_at_a_link(path: str, folded: str) -> None:
    assert fold_process_path(Path(path)).as_posix() == folded
