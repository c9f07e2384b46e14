"""The git sweep fails closed: a walk its bound cut refuses the commands that follow until a
sweep completes, and a nested repository whose protection a later command took away (the
search for nested projects stops short of it) is judged from then on. Measured before: a
directory of 200,001 files touched at each command left a nested repository's
`core.fsmonitor` in place, and 1,000 directories sorting before `vendor/lib` made its config
writable and never judged; both ran at the user's `git status` outside."""

from __future__ import annotations

import dataclasses

from tether.sandbox.git_sweep import GitSweep
from tether.tools.context import ToolContext

from .conftest import Layout, SandboxWrapper, bash_runner, needs_bwrap, sandboxed_context
from .test_git_sweep import _git, _repository

pytestmark = needs_bwrap


def _bounded(layout: Layout, max_entries: int) -> ToolContext:
    ctx = sandboxed_context(layout)
    wrapper = ctx.command_wrapper
    assert isinstance(wrapper, SandboxWrapper)
    sandbox = dataclasses.replace(wrapper.sandbox, git_sweep=GitSweep(max_entries=max_entries))
    ctx.command_wrapper = SandboxWrapper(sandbox, layout)
    return ctx


async def test_a_sweep_cut_by_its_bound_refuses_the_next_command(layout: Layout) -> None:
    _repository(layout)
    run = bash_runner(_bounded(layout, 200))
    first = await run(
        command=(
            "mkdir big && (cd big && touch $(seq 1 300)) && git init -q zz && "
            "git -C zz config core.fsmonitor 'echo RAN' && echo made"
        )
    )
    assert isinstance(first.content, str)
    assert "stopped at its bound of 200 entries" in first.content
    second = await run(command="echo ran")
    assert second.is_error
    assert isinstance(second.content, str)
    assert "did not run this command" in second.content
    assert "bound of 200 entries" in second.content
    # Once the tree is within the bound again, commands run (and the repository is swept).
    for child in (layout.workspace / "big").iterdir():
        child.unlink()
    third = await run(command="echo ran")
    assert isinstance(third.content, str)
    assert third.content.startswith("ran")
    assert "fsmonitor" not in (layout.workspace / "zz" / ".git" / "config").read_text()


async def test_a_nested_repository_that_loses_its_protection_is_judged(layout: Layout) -> None:
    _repository(layout)
    lib = layout.workspace / "vendor" / "lib"
    lib.mkdir(parents=True)
    _git(lib, "init", "-q")
    run = bash_runner(sandboxed_context(layout))
    held = await run(command="git -C vendor/lib config core.fsmonitor 'echo RAN' || echo held")
    assert isinstance(held.content, str)
    assert "held" in held.content
    await run(command="mkdir $(printf 'a%04d ' $(seq 0 1000)) && echo made")
    outcome = await run(command="git -C vendor/lib config core.fsmonitor 'echo RAN'; echo done")
    assert isinstance(outcome.content, str)
    assert "RAN" not in _git(lib, "config", "--get", "core.fsmonitor")


async def test_a_nested_project_keeps_its_guards_past_the_searchs_bound(layout: Layout) -> None:
    """A project found at the first command stays guarded when later directories push it past
    the bound of the search for nested projects: its missing `.mcp.json` cannot be made."""
    (layout.workspace / "vendor" / "tool" / ".claude").mkdir(parents=True)
    run = bash_runner(sandboxed_context(layout))
    await run(command="echo first")
    await run(command="mkdir $(printf 'a%04d ' $(seq 0 1000)) && echo made")
    outcome = await run(
        command="echo '{}' > vendor/tool/.mcp.json || echo held; "
        "echo x > vendor/tool/.claude/settings.json || echo held too"
    )
    assert isinstance(outcome.content, str)
    assert "held\n" in outcome.content
    assert "held too" in outcome.content
