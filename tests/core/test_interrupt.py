"""Interrupting a turn: the running command dies with its group, every call is answered, and
the session takes the next message with a transcript the API accepts."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tether.cli.setup import RunOptions, build_session
from tether.protocol import ToolStarted, TurnFinished, UserInput
from tether.testing import FakeModelServer, reply, text, tool_use


@pytest.mark.usefixtures("trusted_workspace")
async def test_interrupt_during_a_command_then_continue(
    fake_model: FakeModelServer, model_env: FakeModelServer, workspace: Path
) -> None:
    fake_model.script(
        reply(
            tool_use("Bash", command="echo $$ > shell.pid; sleep 60"),
            tool_use("Bash", command="echo $$ > second.pid; sleep 60; touch never-run"),
        ),
        reply(text("stopped as asked")),
    )
    # The shell's pid is read from outside: no sandbox (its own pid namespace) for this test;
    # tests/sandbox checks that an interrupt stops sandboxed commands too.
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "settings.json").write_text('{"sandbox": {"enabled": false}}')
    session = build_session(RunOptions(cwd=workspace, permission_mode="bypassPermissions"))
    try:
        finished: TurnFinished | None = None
        async for event in session.submit(UserInput(text="start")):
            if isinstance(event, ToolStarted) and event.input["command"].startswith("echo"):
                await _until_written(workspace / "shell.pid")
                await _until_written(workspace / "second.pid")  # the calls run side by side
                session.interrupt()
            if isinstance(event, TurnFinished):
                finished = event
        assert finished is not None
        assert (finished.subtype, finished.is_error, finished.error) == (
            "error_during_execution",
            True,
            "interrupted by the user",
        )
        for name in ("shell.pid", "second.pid"):
            assert not _alive(int((workspace / name).read_text()))
        assert not (workspace / "never-run").exists()

        events = [e async for e in session.submit(UserInput(text="why did you stop?"))]
        assert isinstance(events[-1], TurnFinished)
        assert events[-1].result == "stopped as asked"
        follow_up = fake_model.requests[1]
        assert follow_up.tool_result_errors() == [True, True]
        assert all("Interrupted by the user" in r for r in follow_up.tool_results())
        # As Claude Code: the conversation says the user interrupted, before the next prompt.
        assert follow_up.last_user_text() == (
            "[Request interrupted by user for tool use]\nwhy did you stop?"
        )
    finally:
        await session.aclose()


async def _until_written(path: Path) -> None:
    for _ in range(2000):  # polls a file another process writes; bounded so nothing hangs
        if path.exists() and path.read_text().strip():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} was never written")


def _alive(pid: int) -> bool:
    """Running, that is: a zombie waiting for its reaper runs nothing."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    state = stat.rsplit(")", 1)[1].split()[0]  # after the command name, which may hold anything
    return state not in ("Z", "X")


@pytest.mark.usefixtures("trusted_workspace")
async def test_a_second_interrupt_does_not_cut_the_cleanup_short(
    fake_model: FakeModelServer, model_env: FakeModelServer, workspace: Path
) -> None:
    # The command outlives SIGTERM (it notes it and goes on), so stopping it takes the grace
    # period before SIGKILL; a second interrupt (Ctrl+C pressed again) arrives meanwhile. The
    # turn must still end only once the command is gone.
    stubborn = (
        "trap 'echo > got-term' TERM; echo $$ > stubborn.pid; while :; do sleep 60 & wait; done"
    )
    fake_model.script(reply(tool_use("Bash", command=stubborn)))
    (workspace / ".tether").mkdir()
    (workspace / ".tether" / "settings.json").write_text('{"sandbox": {"enabled": false}}')
    session = build_session(RunOptions(cwd=workspace, permission_mode="bypassPermissions"))
    pid_file = workspace / "stubborn.pid"
    try:
        finished: TurnFinished | None = None
        async for event in session.submit(UserInput(text="start")):
            if isinstance(event, ToolStarted):
                await _until_written(pid_file)
                session.interrupt()
                await _until_exists(workspace / "got-term")  # the stopping has begun
                session.interrupt()
            if isinstance(event, TurnFinished):
                finished = event
                assert not _alive(int(pid_file.read_text()))
        assert finished is not None
        assert finished.error == "interrupted by the user"
    finally:
        await session.aclose()


async def _until_exists(path: Path) -> None:
    for _ in range(2000):  # bounded so nothing hangs
        if path.exists():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} never appeared")


async def test_a_stop_that_comes_before_the_turn_stops_it_when_it_starts(
    fake_model: FakeModelServer, model_env: FakeModelServer, workspace: Path
) -> None:
    """Headless takes SIGINT from the moment its session is built: one that came before the
    turn started (preparations done, no turn yet) was handled with nothing to interrupt, and
    the turn then ran in full. It stops the turn as soon as it starts now; the next one runs."""
    fake_model.script(reply(text("the next turn")))
    session = build_session(RunOptions(cwd=workspace, permission_mode="bypassPermissions"))
    try:
        await session.prepare()
        session.interrupt_next_turn("stopped by SIGINT")
        [*_, stopped] = [e async for e in session.submit(UserInput(text="start"))]
        assert isinstance(stopped, TurnFinished)
        assert (stopped.subtype, stopped.error) == ("error_during_execution", "stopped by SIGINT")
        assert fake_model.requests == []
        [*_, after] = [e async for e in session.submit(UserInput(text="go on"))]
        assert isinstance(after, TurnFinished)
        assert (after.error, after.result) == (None, "the next turn")
    finally:
        await session.aclose()
