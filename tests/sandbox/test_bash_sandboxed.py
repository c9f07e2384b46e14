"""The Bash tool with the sandbox's wrapper: working directory, timeout and cancellation stop
everything the command started, the refusal when the sandbox is required but cannot run."""

# Checking files on disk from async tests is deliberate: nothing else runs on the loop.

from __future__ import annotations

import asyncio
import uuid

import pytest

from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome

from .conftest import (
    Layout,
    bash_runner,
    host_processes_with,
    needs_bwrap,
    sandboxed_context,
    wait_until,
)


def sleeper_token() -> str:
    """A sleep length no other process uses, to find the command's processes on the host."""
    return f"{1000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6:06d}"


@needs_bwrap
async def test_working_directory_persists(layout: Layout) -> None:
    ctx = sandboxed_context(layout)
    run = bash_runner(ctx)
    assert await run(command="mkdir -p sub/deeper && cd sub") == ToolOutcome(
        "(Bash completed with no output)", False
    )
    assert ctx.cwd == layout.workspace / "sub"
    assert await run(command="pwd && cd deeper") == ToolOutcome(f"{layout.workspace}/sub", False)
    assert await run(command="pwd") == ToolOutcome(f"{layout.workspace}/sub/deeper", False)


@needs_bwrap
async def test_environment_and_exit_status_pass_through(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SANDBOX_TEST_SETTING", "kept")
    run = bash_runner(sandboxed_context(layout))
    outcome = await run(command='echo "$SANDBOX_TEST_SETTING $PAGER"; exit 3')
    assert outcome == ToolOutcome("Exit code 3\nkept cat", True)


@needs_bwrap
async def test_timeout_stops_everything_the_command_started(layout: Layout) -> None:
    token = sleeper_token()
    run = bash_runner(sandboxed_context(layout))
    # Both the background child and the shell ignore SIGTERM: only the sandbox's teardown
    # can stop them.
    outcome = await run(
        command=f"trap '' TERM; (trap '' TERM; sleep {token}) & touch started; sleep {token}",
        timeout=1000,
    )
    assert outcome == ToolOutcome("Exit code 143\nCommand timed out after 1s", True)
    assert (layout.workspace / "started").exists()
    assert await wait_until(lambda: host_processes_with(token) == [])


@needs_bwrap
async def test_cancellation_stops_everything_and_propagates(layout: Layout) -> None:
    token = sleeper_token()
    run = bash_runner(sandboxed_context(layout))
    task = asyncio.create_task(run(command=f"sleep {token} & touch started; wait"))
    assert await wait_until((layout.workspace / "started").exists)
    assert len(host_processes_with(token)) >= 2  # bwrap, bash, sleep: all on the host's books
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_until(lambda: host_processes_with(token) == [])


async def test_required_but_unavailable_refuses_to_run(layout: Layout) -> None:
    refusal = (
        "sandbox.required is set but the sandbox cannot run here: bubblewrap is not installed "
        "(no `bwrap` on PATH). Bash commands are refused."
    )
    ctx = ToolContext(workspace=layout.workspace, scratch_dir=layout.scratch, bash_refusal=refusal)
    outcome = await bash_runner(ctx)(command="touch ran")
    assert outcome == ToolOutcome(f"Error: {refusal}", True)
    assert not (layout.workspace / "ran").exists()


@needs_bwrap
@pytest.mark.parametrize("delay_s", [0.0, 0.002, 0.01])
async def test_cancel_while_the_sandbox_is_starting_leaves_nothing_running(
    layout: Layout, delay_s: float
) -> None:
    token = sleeper_token()
    run = bash_runner(sandboxed_context(layout))
    task = asyncio.ensure_future(run(command=f"exec sleep {token}"))
    await asyncio.sleep(delay_s)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.2)  # a sandbox that was not yet started would have started by now
    assert await wait_until(lambda: host_processes_with(token) == [])
