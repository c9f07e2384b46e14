"""A search the boundary depends on that its bounds cut does not let the command run as if
everything had been found (fail closed): the command is refused, with the bound, the place and
the way out. Measured before: once a command had made more files than the walk's bound, the
next one printed the `Read`-denied `.env` and a hard link of it."""

from __future__ import annotations

import dataclasses
import os

from tether.sandbox.denied_links import DeniedLinks
from tether.sandbox.denied_reads import Budget

from .conftest import Layout, SandboxWrapper, bash_runner, needs_bwrap
from .test_denied_reads import context, write

pytestmark = needs_bwrap


async def test_a_cut_read_deny_walk_refuses_the_command(layout: Layout) -> None:
    ws = layout.workspace
    write(ws / "app" / ".env", "APIKEY=SECRET\n")
    for i in range(30):
        write(ws / f"a{i:02}" / "f.txt", "x")
    run = bash_runner(context(layout, "Read(**/.env)", budget=Budget(entries=10)))
    outcome = await run(command="cat app/.env; echo ran")
    assert outcome.is_error
    assert isinstance(outcome.content, str)
    assert "SECRET" not in outcome.content
    assert "ran" not in outcome.content
    assert "did not run this command" in outcome.content
    assert "bound of 10 entries" in outcome.content
    assert "Run it again" in outcome.content


async def test_a_cut_hard_link_search_refuses_the_command(layout: Layout) -> None:
    ws = layout.workspace
    write(ws / ".env", "LINKED-SECRET\n")
    (ws / "zz").mkdir()
    os.link(ws / ".env", ws / "zz" / "env.bak")
    for i in range(30):
        write(ws / f"a{i:02}" / "f.txt", "x")
    ctx = context(layout, "Read(./.env)")
    wrapper = ctx.command_wrapper
    assert isinstance(wrapper, SandboxWrapper)
    sandbox = dataclasses.replace(wrapper.sandbox, denied_links=DeniedLinks(Budget(entries=10)))
    ctx.command_wrapper = SandboxWrapper(sandbox, layout)
    outcome = await bash_runner(ctx)(command="cat zz/env.bak; echo ran")
    assert outcome.is_error
    assert isinstance(outcome.content, str)
    assert "LINKED-SECRET" not in outcome.content
    assert "ran" not in outcome.content
    assert "hard links" in outcome.content
    assert "did not run this command" in outcome.content


def test_a_large_settled_tree_is_walked_whole_in_more_passes(layout: Layout) -> None:
    """A tree over one walk's bound, seen for the first time, is walked on where the last
    pass stopped (what it listed is kept): the command waits rather than being refused."""
    from tether.sandbox.denied_reads import DeniedScan

    from .test_denied_reads import denials

    ws = layout.workspace
    for i in range(4):
        for j in range(4):
            write(ws / f"d{i}" / f"e{j}" / "f.txt", "x")
    write(ws / "d3" / "e3" / ".env", "S=1\n")
    for root, dirs, _ in os.walk(ws):
        for name in [root, *(os.path.join(root, d) for d in dirs)]:
            os.utime(name, (1_000_000_000, 1_000_000_000))
    scan = DeniedScan(denials(layout, "Read(**/.env)"), Budget(entries=25))
    found = scan.find([ws], lambda _p: True)
    assert found.cut is None
    assert [d.path for d in found.paths] == [ws / "d3" / "e3" / ".env"]


def test_a_directory_over_the_bound_is_listed_whole_not_refused(layout: Layout) -> None:
    """One directory holding more entries than a walk's bound (a data set, a build's
    output) is listed to its end and the walk goes on past it: the bound is met between
    directories, so ordinary work in such a tree runs. Fresh from a command too (changed
    within the last second): kept for the command's next pass."""
    from tether.sandbox.denied_reads import DeniedScan

    from .test_denied_reads import denials

    ws = layout.workspace
    (ws / "data").mkdir()
    for i in range(120):
        (ws / "data" / f"{i:04}.csv").write_text("x")
    write(ws / "zz" / ".env", "S=1\n")
    write(ws / "data" / "sub" / ".env", "S=2\n")
    scan = DeniedScan(denials(layout, "Read(**/.env)"), Budget(entries=50))
    found = scan.find([ws], lambda _p: True)
    assert found.cut is None
    assert sorted(d.path for d in found.paths) == [ws / "data" / "sub" / ".env", ws / "zz" / ".env"]
