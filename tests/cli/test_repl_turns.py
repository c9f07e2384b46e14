"""The REPL during and around a turn, through a pipe: start-up notices, the plan, and what is
typed while the agent works (steering, queued messages and commands, Ctrl+C keeping a draft)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input

from tests.cli.repl_terminal import (
    CTRL_C,
    CTRL_D,
    PASTE_END,
    PASTE_START,
    PROMPT,
    TURN_END,
    AfterTurn,
    Terminal,
    reading,
)
from tether.cli.repl import KEYS_HINT, NO_PLAN
from tether.cli.repl_turn import PROMPT_PUT_BACK
from tether.cli.setup import RunOptions
from tether.testing import FakeModelServer, Reply, reply, text, tool_use


async def test_startup_notices_are_shown_under_the_banner(
    model_env: FakeModelServer,
    workspace: Path,
    terminal: Terminal,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tether.cli import setup

    build = setup.build

    def build_with_notice(opts: RunOptions) -> setup.Built:
        built = build(opts)
        built.session.startup_notices.append("the sandbox cannot run here: no bubblewrap")
        return built

    monkeypatch.setattr(setup, "build", build_with_notice)
    code = await terminal.run(workspace, CTRL_D)
    assert code == 0
    after_banner = terminal.output.split(KEYS_HINT + "\n\n", 1)[1]
    assert after_banner == "⚠ the sandbox cannot run here: no bubblewrap\n"


# -- the plan ---------------------------------------------------------------------------------


async def test_todos_shows_the_last_plan_the_model_set(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    plan = [
        {"content": "Read the code", "status": "completed", "activeForm": "Reading the code"},
        {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
    ]
    model_env.script(reply(tool_use("TodoWrite", todos=plan)), reply(text("Planned.")))
    code = await terminal.type_steps(workspace, "/todos\rplan it\r", AfterTurn("/todos\r" + CTRL_D))
    assert code == 0
    out = terminal.output
    assert out.count(NO_PLAN) == 1
    assert "● TodoWrite(2 items)\n  ⎿  ☒ Read the code\n     ◐ Fix the bug\n" in out
    assert out.endswith("  ☒ Read the code\n  ◐ Fix the bug\n")
    assert "Todo list updated" not in out  # the checklist replaces the result's text


def bypass(workspace: Path) -> RunOptions:
    return RunOptions(cwd=workspace, permission_mode="bypassPermissions")


def waits_for_go(workspace: Path) -> str:
    """A command that runs until the test creates `go` (bounded, so nothing hangs)."""
    return f"for i in $(seq 2000); do [ -f {workspace / 'go'} ] && break; sleep 0.01; done"


async def test_typing_during_a_turn_steers_the_next_model_call(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    model_env.script(
        reply(tool_use("Bash", command=waits_for_go(workspace))), reply(text("Tabs it is."))
    )
    with create_pipe_input() as pipe:
        pipe.send_text("format the code\r")
        repl = asyncio.create_task(terminal.run_with(workspace, pipe, options=bypass(workspace)))
        await terminal.wait_for("● Bash(")
        pipe.send_text("use tabs\x7fs\r")  # a typo mended with backspace
        await terminal.wait_for("⧗ queued for the next step: use tabs")
        (workspace / "go").touch()
        await terminal.wait_for("Tabs it is.")
        pipe.send_text(CTRL_D)
        assert await repl == 0
    second = model_env.requests[1]
    assert second.last_user_text() == "use tabs"
    assert second.tool_result_errors() == [False]
    assert len(model_env.requests) == 2


def _first_answer_held(model_env: FakeModelServer) -> tuple[threading.Event, threading.Event]:
    """Scripts "First answer." held until `release` is set (`arrived` says the request came),
    then "Second answer."."""
    arrived, release = threading.Event(), threading.Event()

    def slow_answer(_request: object) -> Reply:
        arrived.set()
        release.wait(20)
        return reply(text("First answer."))

    model_env.script(slow_answer, reply(text("Second answer.")))  # type: ignore[arg-type]
    return arrived, release


async def test_a_message_the_model_did_not_read_is_sent_after_the_turn(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    arrived, release = _first_answer_held(model_env)
    with create_pipe_input() as pipe:
        pipe.send_text("first\r")
        repl = asyncio.create_task(terminal.run_with(workspace, pipe, options=bypass(workspace)))
        await asyncio.to_thread(arrived.wait, 20)
        pipe.send_text("then this\r")
        await terminal.wait_for("⧗ queued for the next step: then this")
        release.set()
        await terminal.wait_for("Second answer.")
        pipe.send_text(CTRL_D)
        assert await repl == 0
    assert [r.last_user_text() for r in model_env.requests] == ["first", "then this"]


@pytest.mark.timeout(60)
async def test_a_command_typed_during_a_turn_runs_after_it_and_never_reaches_the_model(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    arrived, release = _first_answer_held(model_env)
    with create_pipe_input() as pipe:
        pipe.send_text("first\r")
        repl = asyncio.create_task(terminal.run_with(workspace, pipe, options=bypass(workspace)))
        await asyncio.to_thread(arrived.wait, 20)
        # As typed at the next prompt: the command, the message after it, then leaving.
        pipe.send_text("/todos\rthen this\r" + CTRL_D)
        await terminal.wait_for("Ctrl+D: leaving after the lines typed before it")
        release.set()
        assert await repl == 0
    assert [r.last_user_text() for r in model_env.requests] == ["first", "then this"]
    out = terminal.output
    assert "⧗ after this turn: /todos\n⧗ after this turn: then this\n" in out
    assert out.index("First answer.") < out.index(NO_PLAN) < out.index("Second answer.")


async def test_ctrl_c_during_a_turn_keeps_what_was_typed_for_the_prompt(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    model_env.script(reply(tool_use("Bash", command="sleep 30")), reply(text("Redirected.")))
    with create_pipe_input() as pipe:
        pipe.send_text("long job\r")
        repl = asyncio.create_task(terminal.run_with(workspace, pipe, options=bypass(workspace)))
        await terminal.wait_for("● Bash(sleep 30)")
        pipe.send_text("no, do the short one\rand")
        await terminal.wait_for("⧗ queued for the next step: no, do the short one")
        pipe.send_text(CTRL_C)  # a key in raw mode: interrupts the turn
        await terminal.wait_for("Interrupted")
        pipe.send_text(" quickly\r")
        await terminal.wait_for("Redirected.")
        pipe.send_text(CTRL_D)
        assert await repl == 0
    assert model_env.requests[1].last_user_text() == (
        "[Request interrupted by user for tool use]\nno, do the short one\nand quickly"
    )


async def test_a_prompt_refused_as_too_long_is_put_back_in_the_input_line(
    model_env: FakeModelServer,
    workspace: Path,
    terminal: Terminal,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Not kept in the session (see test_prompt_window_over_wire): the REPL keeps its text
    instead, in the input line, where Enter sends it again as it was. One tool and a small
    window keep the prompt small enough to draw."""
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", "4000")
    model_env.context_window = 4000
    model_env.script(reply(text("Fine.")))
    with create_pipe_input() as pipe:
        options = RunOptions(cwd=workspace, tools=("Read",))
        repl = asyncio.create_task(terminal.run_with(workspace, pipe, options=options))
        pipe.send_text("start\r")
        await terminal.wait_for(TURN_END)
        await terminal.drawn.wait_until(lambda drawn: reading(drawn, PROMPT))
        pipe.send_text(PASTE_START + "w " * 6000 + PASTE_END + "\r")
        await terminal.wait_for(PROMPT_PUT_BACK)
        pipe.send_text("\r")  # the line holds the refused prompt: sent again, refused again
        await terminal.wait_for(PROMPT_PUT_BACK, 2)
        pipe.close()  # the keyboard gone: the REPL ends as at Ctrl+D
        await repl
    assert len(model_env.requests) == 1  # neither was sent
    assert terminal.output.count("Prompt is too long") == 2


async def test_a_prompt_the_endpoint_refuses_is_put_back_and_the_next_one_is_answered(
    model_env: FakeModelServer,
    workspace: Path,
    terminal: Terminal,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Our estimate says it fits, the endpoint (counting more) refuses it: taken back and put
    back in the input line as one refused before sending, and the next prompt of the same
    session is answered, without it."""
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", "4000")
    model_env.context_window = 4000
    model_env.expect_rejections = True
    model_env.script(reply(text("Fine.")), reply(text("Small.")))
    with create_pipe_input() as pipe:
        options = RunOptions(cwd=workspace, tools=("Read",))
        repl = asyncio.create_task(terminal.run_with(workspace, pipe, options=options))
        pipe.send_text("start\r")
        await terminal.wait_for(TURN_END)
        await terminal.drawn.wait_until(lambda drawn: reading(drawn, PROMPT))
        model_env.token_factor = 1.6
        pipe.send_text(PASTE_START + "REFUSED " + "w " * 3400 + PASTE_END + "\r")
        await terminal.wait_for(PROMPT_PUT_BACK)
        pipe.send_text("\x15small\r")  # Ctrl+U: the line emptied, a small prompt instead
        await terminal.wait_for(TURN_END, 2)
        pipe.close()
        await repl
    assert len(model_env.rejections) == 1  # the refused one, sent once
    assert "Small." in terminal.output
    last = model_env.requests[-1]
    assert last.last_user_text() == "small"
    assert "REFUSED" not in str(last.body)
