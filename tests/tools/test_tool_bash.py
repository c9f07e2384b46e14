"""Bash: working directory, environment, exit codes, timeouts, cancellation, huge output."""

# Checking files on disk from async tests is deliberate: nothing else runs on the loop.

from __future__ import annotations

import asyncio
import os
import re
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from tether.tools.builtin.shell_output import LOG_CAP_BYTES
from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome

RunTool = Callable[..., Awaitable[ToolOutcome]]


def process_gone(pid: int) -> bool:
    """Dead or a zombie: an orphaned zombie may wait a while for a reaper, but it runs nothing."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    state = stat.rsplit(")", 1)[1].split()[0]
    return state in ("Z", "X")


async def wait_until(condition: Callable[[], bool], *, limit_s: float = 20.0) -> bool:
    """Poll `condition()` until true; the limit only stops a broken test from hanging."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit_s
    while loop.time() < deadline:
        if condition():
            return True
        await asyncio.sleep(0.02)
    return condition()


async def test_output_of_a_command(run_tool: RunTool) -> None:
    assert await run_tool("Bash", command="echo hi") == ToolOutcome("hi", False)


async def test_stdout_and_stderr_are_merged(run_tool: RunTool) -> None:
    outcome = await run_tool("Bash", command="echo out; echo err >&2; echo out2")
    assert outcome == ToolOutcome("out\nerr\nout2", False)


async def test_no_output(run_tool: RunTool) -> None:
    assert await run_tool("Bash", command="true") == ToolOutcome(
        "(Bash completed with no output)", False
    )


async def test_stdin_is_empty(run_tool: RunTool) -> None:
    # cat would wait forever on an inherited terminal or pipe.
    outcome = await run_tool("Bash", command="cat; echo done", timeout=20_000)
    assert outcome == ToolOutcome("done", False)


async def test_non_zero_exit_is_an_error_with_output(run_tool: RunTool) -> None:
    outcome = await run_tool("Bash", command="echo oops; exit 3")
    assert outcome == ToolOutcome("Exit code 3\noops", True)


async def test_shell_killed_by_a_signal(run_tool: RunTool) -> None:
    outcome = await run_tool("Bash", command="kill -KILL $$")
    assert outcome == ToolOutcome("Error: Killed by signal SIGKILL", True)


async def test_output_that_is_not_utf8_is_replaced(run_tool: RunTool) -> None:
    outcome = await run_tool("Bash", command=r"printf 'caf\xe9 ok'")
    assert outcome == ToolOutcome("caf\ufffd ok", False)


async def test_working_directory_persists(run_tool: RunTool, ctx: ToolContext) -> None:
    ws = ctx.workspace
    outcome = await run_tool("Bash", command="mkdir sub && cd sub")
    assert outcome == ToolOutcome("(Bash completed with no output)", False)
    assert ctx.cwd == ws / "sub"
    assert await run_tool("Bash", command="pwd") == ToolOutcome(f"{ws}/sub", False)


async def test_working_directory_persists_after_exit(run_tool: RunTool, ctx: ToolContext) -> None:
    (ctx.workspace / "sub").mkdir()
    outcome = await run_tool("Bash", command="cd sub && exit 4")
    assert outcome == ToolOutcome("Exit code 4", True)
    assert ctx.cwd == ctx.workspace / "sub"


async def test_leaving_the_workspace_resets_the_directory(
    run_tool: RunTool, ctx: ToolContext, tmp_path: Path
) -> None:
    ws = ctx.workspace
    outcome = await run_tool("Bash", command=f"cd {tmp_path} && echo moved")
    assert outcome == ToolOutcome(
        f"moved\n\n[The shell ended in {tmp_path}, outside the workspace; the working "
        f"directory was reset to the workspace {ws}.]",
        False,
    )
    assert await run_tool("Bash", command="pwd") == ToolOutcome(f"{ws}", False)


async def test_directory_removed_by_the_command(run_tool: RunTool, ctx: ToolContext) -> None:
    ws = ctx.workspace
    outcome = await run_tool("Bash", command="mkdir gone && cd gone && rmdir ../gone")
    assert outcome == ToolOutcome(
        "(Bash completed with no output)\n\n"
        f"[The shell ended in {ws}/gone, which no longer exists; the working "
        f"directory was reset to the workspace {ws}.]",
        False,
    )
    assert ctx.cwd == ws


async def test_directory_removed_between_calls(run_tool: RunTool, ctx: ToolContext) -> None:
    ws = ctx.workspace
    await run_tool("Bash", command="mkdir sub && cd sub")
    (ws / "sub").rmdir()
    outcome = await run_tool("Bash", command="pwd")
    assert outcome == ToolOutcome(
        f"{ws}\n\n[The working directory {ws}/sub no longer exists; the command ran in the "
        f"workspace {ws} instead.]",
        False,
    )


async def test_environment_does_not_persist(run_tool: RunTool) -> None:
    await run_tool("Bash", command="export TETHER_TEST_VAR=set")
    outcome = await run_tool("Bash", command='echo "${TETHER_TEST_VAR:-unset}"')
    assert outcome == ToolOutcome("unset", False)


async def test_pagers_and_terminal_are_neutralised(run_tool: RunTool) -> None:
    outcome = await run_tool("Bash", command='echo "$PAGER $GIT_PAGER $TERM"')
    assert outcome == ToolOutcome("cat cat dumb", False)


async def test_timeout_stops_the_whole_process_group(run_tool: RunTool) -> None:
    outcome = await run_tool("Bash", command="sleep 100 & echo child $!; sleep 100", timeout=1000)
    assert outcome.is_error
    match = re.fullmatch(r"Exit code 143\nCommand timed out after 1s\nchild (\d+)", outcome.content)
    assert match is not None, outcome.content
    child = int(match.group(1))
    assert await wait_until(lambda: process_gone(child))


async def test_cancellation_stops_the_group_and_propagates(
    run_tool: RunTool, ctx: ToolContext
) -> None:
    pids = ctx.workspace / "pids"
    task = asyncio.create_task(
        run_tool("Bash", command="sleep 100 & echo $$ $! > pids.tmp && mv pids.tmp pids; wait")
    )
    assert await wait_until(pids.exists)
    shell, child = (int(p) for p in pids.read_text().split())
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_until(lambda: process_gone(shell) and process_gone(child))


async def test_huge_output_is_cut_and_saved_with_a_cap(run_tool: RunTool, ctx: ToolContext) -> None:
    outcome = await run_tool("Bash", command="yes abcdefghi | head -c 100000000")
    assert not outcome.is_error
    head, marker, tail = outcome.content.split("\n\n")
    assert head == ("abcdefghi\n" * 1000).rstrip("\n")
    assert tail == ("abcdefghi\n" * 2000).rstrip("\n")  # no final newline, as Claude Code
    saved = re.search(r"were saved to (\S+) \(the log cap was hit; the rest is lost\)", marker)
    assert saved is not None, marker
    assert marker.startswith("[... 99,970,000 bytes cut from the middle of 95.4 MiB, ")
    log = Path(saved.group(1))
    assert log.parent == ctx.scratch_dir
    assert log.stat().st_size == LOG_CAP_BYTES


async def test_long_output_keeps_head_and_tail_and_the_full_log(
    run_tool: RunTool, ctx: ToolContext
) -> None:
    outcome = await run_tool("Bash", command="seq 1 20000")
    full = "".join(f"{n}\n" for n in range(1, 20001))
    assert not outcome.is_error
    head, marker, tail = outcome.content.split("\n\n")
    assert full.startswith(head)
    assert full.endswith(f"{tail}\n")  # the final newline left out, as Claude Code does
    assert len(tail) == 19_999
    assert 9_990 < len(head) <= 10_000
    saved = re.search(r"the full output is in (\S+);", marker)
    assert saved is not None, marker
    assert Path(saved.group(1)).read_text() == full


async def test_short_output_leaves_no_files_behind(run_tool: RunTool, ctx: ToolContext) -> None:
    await run_tool("Bash", command="echo hi; cd /")
    assert list(ctx.scratch_dir.iterdir()) == []


async def test_background_process_holding_the_output(run_tool: RunTool) -> None:
    outcome = await run_tool("Bash", command="sleep 60 & echo $!")
    pid = int(outcome.content.split("\n")[0])
    try:
        assert outcome == ToolOutcome(
            f"{pid}\n\n[Processes started in the background still had the output open when the "
            "shell exited; what they print from now on is discarded (and may stop them). Start "
            "long-running processes with run_in_background instead, to read their output "
            "with BashOutput.]",
            False,
        )
    finally:
        os.kill(pid, signal.SIGKILL)


async def test_extra_fields_are_refused(run_tool: RunTool) -> None:
    outcome = await run_tool("Bash", command="echo hi", shell="zsh")
    assert outcome == ToolOutcome("Error: Invalid input for Bash: unexpected field 'shell'", True)


async def test_timeout_above_the_maximum_is_refused(run_tool: RunTool) -> None:
    outcome = await run_tool("Bash", command="echo hi", timeout=600_001)
    assert outcome == ToolOutcome(
        "Error: Invalid input for Bash: timeout: Input should be less than or equal to 600000 "
        "(got 600001)",
        True,
    )


@pytest.mark.parametrize("delay_s", [0.0, 0.001, 0.003, 0.01])
async def test_cancel_while_the_shell_is_starting_leaves_nothing_running(
    run_tool: RunTool, ws: Path, delay_s: float
) -> None:
    # A cancellation can arrive after the fork but before the spawn returns: the process it
    # started must still be stopped, and the pipe closed (warnings are errors here).
    task = asyncio.ensure_future(run_tool("Bash", command="echo $$ > shell.pid; exec sleep 30"))
    await asyncio.sleep(delay_s)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.2)  # a shell that was not yet started would have written by now
    pid_file = ws / "shell.pid"
    if pid_file.exists() and pid_file.read_text().strip():
        shell = int(pid_file.read_text())
        assert await wait_until(lambda: process_gone(shell))
