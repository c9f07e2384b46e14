"""Background commands: Bash with run_in_background, BashOutput, KillShell, and the registry the
loop asks which commands ended. Real processes throughout."""

# Checking files on disk from async tests is deliberate: nothing else runs on the loop.

from __future__ import annotations

import asyncio
import re
import tracemalloc
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from tether.tools.background_shells import BackgroundShell, BackgroundShells
from tether.tools.context import ToolContext
from tether.tools.registry import ToolOutcome

from .test_tool_bash import process_gone, wait_until

RunTool = Callable[..., Awaitable[ToolOutcome]]

STARTED = re.compile(
    r"Started background command (bash_\d+) \(pid (\d+)\)\. Output: (\S+)\. "
    r'Read it with BashOutput\(bash_id="\1"\); stop it with KillShell\(shell_id="\1"\)\.'
)


@pytest.fixture(autouse=True)
async def stop_background(ctx: ToolContext) -> AsyncIterator[None]:
    yield
    await ctx.background.kill_all()


async def start(run_tool: RunTool, command: str) -> tuple[str, int, Path]:
    """Start `command` in the background: its id, pid and log."""
    outcome = await run_tool("Bash", command=command, run_in_background=True)
    match = STARTED.fullmatch(outcome.content)
    assert match is not None, outcome
    return match.group(1), int(match.group(2)), Path(match.group(3))


async def finish(ctx: ToolContext, shell_id: str) -> BackgroundShell:
    """Wait for the command to end and for what it printed to reach its log."""
    shell = ctx.background.get(shell_id)
    assert await wait_until(lambda: shell.returncode is not None)
    await shell.settle(grace_s=30)
    return shell


async def notices_until(ctx: ToolContext, count: int) -> list[str]:
    """What `finished_unreported` says over successive calls, until `count` notices came."""
    notices: list[str] = []

    def enough() -> bool:
        notices.extend(ctx.background.finished_unreported())
        return len(notices) >= count

    assert await wait_until(enough)
    return notices


async def test_start_returns_at_once_and_the_output_follows(
    run_tool: RunTool, ctx: ToolContext
) -> None:
    # Bash returns while the command still waits for `go`: had it waited, it would never end.
    shell_id, pid, log = await start(
        run_tool, "while [ ! -e go ]; do sleep 0.02; done; echo went; echo oops >&2"
    )
    assert (shell_id, log.parent) == ("bash_1", ctx.scratch_dir)
    assert re.fullmatch(r"bg-bash_1-\w+\.log", log.name), log.name
    assert not process_gone(pid)
    assert await run_tool("BashOutput", bash_id="bash_1") == ToolOutcome(
        "(no new output)\n\n[Status: running]", False
    )
    (ctx.workspace / "go").touch()
    await finish(ctx, "bash_1")
    assert await run_tool("BashOutput", bash_id="bash_1") == ToolOutcome(
        "went\noops\n\n[Status: exited with code 0]", False
    )
    assert log.read_text() == "went\noops\n"


async def test_successive_reads_return_only_new_output(run_tool: RunTool, ctx: ToolContext) -> None:
    _, _, log = await start(
        run_tool, "echo one; while [ ! -e go ]; do sleep 0.02; done; echo two; exit 3"
    )
    assert await wait_until(lambda: log.read_text() == "one\n")
    assert await run_tool("BashOutput", bash_id="bash_1") == ToolOutcome(
        "one\n\n[Status: running]", False
    )
    assert await run_tool("BashOutput", bash_id="bash_1") == ToolOutcome(
        "(no new output)\n\n[Status: running]", False
    )
    (ctx.workspace / "go").touch()
    await finish(ctx, "bash_1")
    assert await run_tool("BashOutput", bash_id="bash_1") == ToolOutcome(
        "two\n\n[Status: exited with code 3]", False
    )
    assert await run_tool("BashOutput", bash_id="bash_1") == ToolOutcome(
        "(no new output)\n\n[Status: exited with code 3]", False
    )


async def test_a_character_split_by_a_read_is_not_garbled(
    run_tool: RunTool, ctx: ToolContext
) -> None:
    _, _, log = await start(
        run_tool, r"printf 'caf\xc3'; while [ ! -e go ]; do sleep 0.02; done; printf '\xa9!'"
    )
    assert await wait_until(lambda: log.read_bytes() == b"caf\xc3")
    assert await run_tool("BashOutput", bash_id="bash_1") == ToolOutcome(
        "caf\n\n[Status: running]", False
    )
    (ctx.workspace / "go").touch()
    await finish(ctx, "bash_1")
    assert await run_tool("BashOutput", bash_id="bash_1") == ToolOutcome(
        "é!\n\n[Status: exited with code 0]", False
    )


async def test_filter_keeps_matching_lines(run_tool: RunTool, ctx: ToolContext) -> None:
    await start(run_tool, "printf 'apple\\nbanana\\napricot\\n'")
    await finish(ctx, "bash_1")
    assert await run_tool("BashOutput", bash_id="bash_1", filter="^ap") == ToolOutcome(
        "apple\napricot\n\n[Status: exited with code 0]", False
    )
    # The lines that did not match were read too.
    assert await run_tool("BashOutput", bash_id="bash_1") == ToolOutcome(
        "(no new output)\n\n[Status: exited with code 0]", False
    )


async def test_filter_waits_for_the_end_of_a_line(run_tool: RunTool, ctx: ToolContext) -> None:
    _, _, log = await start(
        run_tool, "printf 'ok\\nerr'; while [ ! -e go ]; do sleep 0.02; done; printf 'or here'"
    )
    assert await wait_until(lambda: log.read_text() == "ok\nerr")
    assert await run_tool("BashOutput", bash_id="bash_1", filter="error") == ToolOutcome(
        "(no new matching lines)\n\n[Status: running]", False
    )
    (ctx.workspace / "go").touch()
    await finish(ctx, "bash_1")
    assert await run_tool("BashOutput", bash_id="bash_1", filter="error") == ToolOutcome(
        "error here\n\n[Status: exited with code 0]", False
    )


async def test_invalid_filter_is_refused(run_tool: RunTool) -> None:
    await start(run_tool, "true")
    assert await run_tool("BashOutput", bash_id="bash_1", filter="(") == ToolOutcome(
        "Error: Invalid regular expression '(' for filter: missing ), unterminated subpattern "
        "at position 0",
        True,
    )


async def test_ten_megabytes_stay_in_the_file(run_tool: RunTool, ctx: ToolContext) -> None:
    _, _, log = await start(run_tool, "yes abcdefghi | head -c 10000000")
    await finish(ctx, "bash_1")
    assert log.stat().st_size == 10_000_000
    tracemalloc.start()
    try:
        outcome = await run_tool("BashOutput", bash_id="bash_1")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000
    tail = "abcdefghi\n" * 3000
    assert outcome == ToolOutcome(
        f"[... 9,970,000 bytes of earlier output skipped; the full log is {log} ...]\n"
        f"{tail.rstrip()}\n\n[Status: exited with code 0]",
        False,
    )


async def test_the_log_keeps_the_newest_output_under_its_cap(
    run_tool: RunTool, ctx: ToolContext
) -> None:
    ctx.background = BackgroundShells(log_cap_bytes=1_000_000)
    # 5 MB in numbered lines of 10 bytes: "000000001\n" ... "000500000\n".
    _, _, log = await start(run_tool, "seq -f %09g 1 500000")
    await finish(ctx, "bash_1")
    size = log.stat().st_size
    assert 500_000 <= size <= 1_000_000
    assert log.read_bytes().endswith(b"000499999\n000500000\n")
    outcome = await run_tool("BashOutput", bash_id="bash_1")
    dropped = 5_000_000 - size
    shown = "".join(f"{n:09d}\n" for n in range(497_001, 500_001))
    assert outcome == ToolOutcome(
        f"[... {dropped:,} bytes of output were dropped before they were read: a background "
        "command's log keeps at most 976.6 KiB, its newest output ...]\n"
        f"[... {size - 30_000:,} bytes of earlier output skipped; the full log is {log} ...]\n"
        f"{shown.rstrip()}\n\n[Status: exited with code 0]",
        False,
    )


async def test_a_command_printing_without_end_fills_no_disk(
    run_tool: RunTool, ctx: ToolContext
) -> None:
    ctx.background = BackgroundShells(log_cap_bytes=1_000_000)
    _, _, log = await start(run_tool, "yes")
    assert await wait_until(lambda: ctx.background.get("bash_1").log.size > 20_000_000)
    assert log.stat().st_size <= 1_000_000
    first = await run_tool("BashOutput", bash_id="bash_1")
    assert first.content.startswith("[... ")
    assert "bytes of output were dropped before they were read" in first.content
    await run_tool("KillShell", shell_id="bash_1")
    assert log.stat().st_size <= 1_000_000


async def test_many_commands_printing_without_end_share_one_cap_and_say_so(
    run_tool: RunTool, ctx: ToolContext
) -> None:
    ctx.background = BackgroundShells(log_cap_bytes=1_000_000, log_total_bytes=3_000_000)
    logs = [(await start(run_tool, "yes"))[2] for _ in range(6)]
    ids = [f"bash_{n}" for n in range(1, 7)]
    assert await wait_until(
        lambda: all(ctx.background.get(i).log.size > 5_000_000 for i in ids), limit_s=120
    )
    assert sum(log.stat().st_size for log in logs) <= 3_000_000
    outputs = [(await run_tool("BashOutput", bash_id=i)).content for i in ids]
    for shell_id in ids:
        await run_tool("KillShell", shell_id=shell_id)
    said = "the logs of this session's background commands keep at most 2.9 MiB together"
    assert any(said in output for output in outputs), outputs[0][:300]


async def test_filtered_read_of_a_huge_log_is_capped(run_tool: RunTool, ctx: ToolContext) -> None:
    _, _, log = await start(run_tool, "seq 1 300000")
    await finish(ctx, "bash_1")
    tracemalloc.start()
    try:
        outcome = await run_tool("BashOutput", bash_id="bash_1", filter="7$")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000
    # 30,000 matching lines: the last ones, whole, up to 30,000 characters in all.
    matching = [f"{n}\n" for n in range(7, 300_001, 10)]
    kept: list[str] = []
    while len(matching[-1]) + sum(map(len, kept)) <= 30_000:
        kept.insert(0, matching.pop())
    skipped = sum(map(len, matching))
    assert outcome == ToolOutcome(
        f"[... {skipped:,} bytes of earlier matching lines skipped; the full log is {log} ...]\n"
        f"{''.join(kept).rstrip()}\n\n[Status: exited with code 0]",
        False,
    )


async def test_kill_shell_stops_the_whole_group(run_tool: RunTool, ctx: ToolContext) -> None:
    _, shell_pid, _ = await start(
        run_tool, "sleep 300 & echo $! > child.tmp && mv child.tmp child.pid; sleep 300; wait"
    )
    child_file = ctx.workspace / "child.pid"
    assert await wait_until(child_file.exists)
    child = int(child_file.read_text())
    assert await run_tool("KillShell", shell_id="bash_1") == ToolOutcome(
        "Stopped background command bash_1 (`sleep 300 & echo $! > child.tmp && mv child.tmp "
        "child.pid; sleep 300; wait`): killed by signal SIGTERM.",
        False,
    )
    assert await wait_until(lambda: process_gone(shell_pid) and process_gone(child))
    assert ctx.background.finished_unreported() == []
    assert await run_tool("KillShell", shell_id="bash_1") == ToolOutcome(
        "Background command bash_1 had already finished (killed by signal SIGTERM); "
        "nothing to stop.",
        False,
    )


async def test_kill_shell_after_the_end_says_so(run_tool: RunTool, ctx: ToolContext) -> None:
    await start(run_tool, "exit 2")
    await finish(ctx, "bash_1")
    assert await run_tool("KillShell", shell_id="bash_1") == ToolOutcome(
        "Background command bash_1 had already finished (exited with code 2); nothing to stop.",
        False,
    )
    assert ctx.background.finished_unreported() == []


async def test_an_ended_command_is_announced_once(run_tool: RunTool, ctx: ToolContext) -> None:
    await start(run_tool, "exit 3")
    await start(run_tool, "sleep 300")
    await start(run_tool, "kill -KILL $$")
    # Nobody reads or awaits the commands: asking for the notices alone must see them end.
    # Each comes as its command ends, and the two may end in either order.
    assert sorted(await notices_until(ctx, 2)) == [
        "Background command bash_1 (`exit 3`) exited with code 3; read its output with "
        'BashOutput(bash_id="bash_1").',
        "Background command bash_3 (`kill -KILL $$`) killed by signal SIGKILL; read its output "
        'with BashOutput(bash_id="bash_3").',
    ]
    assert ctx.background.finished_unreported() == []
    await run_tool("KillShell", shell_id="bash_2")
    assert ctx.background.finished_unreported() == []


async def test_an_end_read_with_bash_output_is_not_announced(
    run_tool: RunTool, ctx: ToolContext
) -> None:
    await start(run_tool, "echo done")
    await finish(ctx, "bash_1")
    await run_tool("BashOutput", bash_id="bash_1")
    assert ctx.background.finished_unreported() == []


async def test_long_commands_are_cut_in_notices(run_tool: RunTool, ctx: ToolContext) -> None:
    words = " ".join(f"arg{n}" for n in range(40))
    await start(run_tool, f"echo start\n  echo {words}")
    shown = f"echo start echo {words}"
    assert await notices_until(ctx, 1) == [
        f"Background command bash_1 (`{shown[:79]}…`) exited with code 0; read its output with "
        'BashOutput(bash_id="bash_1").'
    ]


async def test_kill_all_stops_everything(run_tool: RunTool, ctx: ToolContext) -> None:
    _, first, _ = await start(run_tool, "sleep 300")
    _, second, _ = await start(run_tool, "trap '' TERM; sleep 300 & wait")
    await start(run_tool, "true")
    await finish(ctx, "bash_3")
    assert [s.id for s in ctx.background.running()] == ["bash_1", "bash_2"]
    assert await ctx.background.kill_all() == 2
    assert await wait_until(lambda: process_gone(first) and process_gone(second))
    assert ctx.background.running() == []
    assert ctx.background.finished_unreported() == [
        "Background command bash_3 (`true`) exited with code 0; read its output with "
        'BashOutput(bash_id="bash_3").'
    ]
    assert await ctx.background.kill_all() == 0


async def test_commands_started_at_once_get_ids_of_their_own(
    run_tool: RunTool, ctx: ToolContext
) -> None:
    """Parallel calls (one reply calling Bash twice) start their commands at once. Before,
    both took the id `bash_1` and the second replaced the first: the first could be neither
    read nor stopped, and outlived the session."""
    started = await asyncio.gather(start(run_tool, "sleep 300"), start(run_tool, "sleep 301"))
    assert sorted(shell_id for shell_id, _pid, _log in started) == ["bash_1", "bash_2"]
    assert sorted(s.command for s in ctx.background.running()) == ["sleep 300", "sleep 301"]
    assert await ctx.background.kill_all() == 2
    assert await wait_until(lambda: all(process_gone(pid) for _id, pid, _log in started))


async def test_unknown_ids_are_errors_naming_the_known_ones(run_tool: RunTool) -> None:
    assert await run_tool("BashOutput", bash_id="bash_7") == ToolOutcome(
        "Error: No background command has id 'bash_7'; none has been started in this session "
        "(start one with Bash and run_in_background: true).",
        True,
    )
    await start(run_tool, "true")
    await start(run_tool, "true")
    assert await run_tool("KillShell", shell_id="7") == ToolOutcome(
        "Error: No background command has id '7'; known ids: bash_1, bash_2.", True
    )


async def test_the_sandbox_wrapper_applies(run_tool: RunTool, ctx: ToolContext) -> None:
    seen: list[tuple[list[str], Path]] = []

    def wrap(argv: list[str], cwd: Path) -> list[str]:
        seen.append((argv, cwd))
        return ["env", "TETHER_WRAPPED=1", *argv]

    ctx.command_wrapper = wrap
    await start(run_tool, 'echo "wrapped=$TETHER_WRAPPED"')
    await finish(ctx, "bash_1")
    assert await run_tool("BashOutput", bash_id="bash_1") == ToolOutcome(
        "wrapped=1\n\n[Status: exited with code 0]", False
    )
    assert [cwd for _, cwd in seen] == [ctx.workspace]


async def test_directory_and_environment(run_tool: RunTool, ctx: ToolContext) -> None:
    ws = ctx.workspace
    await run_tool("Bash", command="mkdir sub && cd sub")
    await start(run_tool, 'pwd; echo "$PAGER $TERM"; cd /; cat')
    await finish(ctx, "bash_1")
    # It started where the session's shell was, read empty stdin, and did not move the session.
    assert await run_tool("BashOutput", bash_id="bash_1") == ToolOutcome(
        f"{ws}/sub\ncat dumb\n\n[Status: exited with code 0]", False
    )
    assert ctx.cwd == ws / "sub"


async def test_an_interrupted_turn_leaves_it_running(run_tool: RunTool, ctx: ToolContext) -> None:
    _, pid, _ = await start(run_tool, "sleep 300")
    task = asyncio.ensure_future(run_tool("Bash", command="touch started; sleep 300"))
    assert await wait_until((ctx.workspace / "started").exists)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [s.id for s in ctx.background.running()] == ["bash_1"]
    assert not process_gone(pid)


async def test_a_command_that_cannot_start(run_tool: RunTool, ctx: ToolContext) -> None:
    ctx.command_wrapper = lambda argv, cwd: ["/nonexistent/wrapper", *argv]
    assert await run_tool("Bash", command="true", run_in_background=True) == ToolOutcome(
        "Error: Could not start /nonexistent/wrapper: No such file or directory", True
    )
    assert list(ctx.scratch_dir.iterdir()) == []


@pytest.mark.parametrize("delay_s", [0.0, 0.001, 0.003])
async def test_cancel_while_starting_leaves_nothing_running(
    run_tool: RunTool, ctx: ToolContext, delay_s: float
) -> None:
    task = asyncio.ensure_future(
        run_tool("Bash", command="echo $$ > shell.pid; exec sleep 30", run_in_background=True)
    )
    await asyncio.sleep(delay_s)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    else:
        return  # it had started before the cancellation came: an ordinary background command
    assert ctx.background.running() == []
    assert list(ctx.scratch_dir.glob("bg-*")) == []
    await asyncio.sleep(0.2)  # a shell that was not yet started would have written by now
    pid_file = ctx.workspace / "shell.pid"
    if pid_file.exists() and pid_file.read_text().strip():
        shell = int(pid_file.read_text())
        assert await wait_until(lambda: process_gone(shell))
