"""The REPL, driven through a pipe instead of a keyboard, against the fake model server: a
turn, commands, keys, history, and a session built while the prompt is on screen."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from tests.cli.repl_terminal import (
    ALT_ENTER,
    CTRL_C,
    CTRL_D,
    PASTE_END,
    PASTE_START,
    AfterTurn,
    Screen,
    Terminal,
    bash_turns,
)
from tether.cli.repl import CLEARED, EXIT_HINT, INTERRUPTED_HINT, KEYS_HINT, run_repl
from tether.cli.setup import RunOptions
from tether.cli.startup import LazyOptions
from tether.core.loop import INTERRUPTED
from tether.testing import FakeModelServer, reply, text, tool_use


async def test_a_prompt_gets_the_streamed_answer(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    model_env.script(reply(text("Hello from the model.")))
    code = await terminal.run(workspace, "say hello\r" + CTRL_D)
    assert code == 0
    assert [r.last_user_text() for r in model_env.requests] == ["say hello"]
    out = terminal.output
    assert "tether " in out
    assert str(workspace.name) in out
    assert "Hello from the model.\n" in out
    assert "─ 1 model call · " in out


async def test_tool_call_shows_its_line_and_diff(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    (workspace / "notes.txt").write_text("one\ntwo\n")
    model_env.script(
        reply(tool_use("Read", file_path="notes.txt")),
        reply(tool_use("Edit", file_path="notes.txt", old_string="two", new_string="three")),
        reply(text("Changed it.")),
    )
    edits = RunOptions(cwd=workspace, permission_mode="acceptEdits")
    code = await terminal.run(workspace, "change two to three\r" + CTRL_D, options=edits)
    assert code == 0
    assert (workspace / "notes.txt").read_text() == "one\nthree\n"
    out = terminal.output
    assert "● Read(notes.txt)\n  ⎿  Read 2 lines\n" in out
    assert "● Edit(notes.txt)\n  ⎿  Updated notes.txt +1 -1\n" in out
    assert "     -two\n     +three\n" in out
    assert "Changed it." in out


async def test_commands_need_no_model(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    code = await terminal.run(workspace, "/help\r/cost\r/clear\r/frobnicate now\r/exit\r")
    assert code == 0
    assert model_env.requests == []
    out = terminal.output
    assert "/cost          tokens used and cost of this session" in out
    assert "Total cost:            $0.0000\n" in out
    assert "Total code changes:    0 lines added, 0 lines removed\n" in out
    assert CLEARED in out
    assert "Unknown command /frobnicate. Type /help for the commands." in out


async def test_cost_adds_up_the_turns_as_claude_codes_cost_does(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    """Claude Code's /cost: the total cost, the time the model calls took (API) and since the
    start (wall), the lines edits changed, and each model's tokens and cost."""
    (workspace / "notes.txt").write_text("one\ntwo\n")
    model_env.script(
        reply(text("one"), usage={"input_tokens": 1000, "output_tokens": 20}),
        reply(
            tool_use("Read", file_path="notes.txt"), usage={"input_tokens": 1, "output_tokens": 1}
        ),
        reply(
            tool_use("Edit", file_path="notes.txt", old_string="two", new_string="2\n3"),
            usage={"input_tokens": 1100, "output_tokens": 25},
        ),
        reply(text("two"), usage={"input_tokens": 1200, "output_tokens": 30}),
    )
    edits = RunOptions(cwd=workspace, permission_mode="acceptEdits")
    code = await terminal.type_steps(
        workspace, "a\r", AfterTurn("b\r"), AfterTurn("/cost\r/quit\r"), options=edits
    )
    assert code == 0
    out = terminal.output
    assert re.search(r"\nTotal cost: {12}\$\d+\.\d{4}\n", out), out
    assert re.search(r"\nTotal duration \(API\):  (\d+m )?\d+\.\ds\n", out), out
    assert re.search(r"\nTotal duration \(wall\): (\d+m )?\d+\.\ds\n", out), out
    assert "\nTotal code changes:    2 lines added, 1 line removed\n" in out, out
    assert re.search(
        r"\nUsage by model:\n  claude-[a-z0-9-]+:  3\.3k input, 76 output,"
        r" [\d.]+k? cache read, [\d.]+k? cache write \(\$\d+\.\d{4}\)\n",
        out,
    ), out


async def test_ctrl_c_twice_at_an_empty_prompt_exits(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    code = await terminal.run(workspace, "draft" + CTRL_C + CTRL_C + CTRL_C)
    assert code == 0
    # The first Ctrl+C cleared the draft; the next two, on an empty prompt, hint then exit.
    assert terminal.output.count(EXIT_HINT) == 1
    assert model_env.requests == []


async def test_alt_enter_and_paste_keep_one_message(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    model_env.script(reply(text("ok")), reply(text("ok")))
    code = await terminal.type_steps(
        workspace,
        "first line" + ALT_ENTER + "second line\r",
        AfterTurn(PASTE_START + "pasted one\npasted two" + PASTE_END + "\r"),
        AfterTurn(CTRL_D),
    )
    assert code == 0
    assert [r.last_user_text() for r in model_env.requests] == [
        "first line\nsecond line",
        "pasted one\npasted two",
    ]


async def test_history_is_kept_in_tether_home(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    model_env.script(reply(text("ok")))
    await terminal.run(workspace, "remember me\r" + CTRL_D)
    history = Path(os.environ["TETHER_HOME"]) / "history"
    assert "+remember me" in history.read_text()


async def test_initial_prompt_runs_first(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    model_env.script(reply(text("started")))
    code = await terminal.run(workspace, CTRL_D, initial_prompt="begin here")
    assert code == 0
    assert [r.last_user_text() for r in model_env.requests] == ["begin here"]
    assert "> begin here\n" in terminal.output


async def test_ctrl_c_interrupts_the_turn_and_keeps_the_session(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    model_env.script(*bash_turns("sleep 30", "Back again."))
    with create_pipe_input() as pipe:
        pipe.send_text("wait for it\r")
        repl = asyncio.create_task(terminal.run_with(workspace, pipe))
        await terminal.wait_for("● Bash(sleep 30)")
        os.kill(os.getpid(), signal.SIGINT)
        await terminal.wait_for("● Bash(sleep 30)\n  ⎿  Interrupted\n")
        pipe.send_text("carry on\r" + CTRL_D)
        assert await repl == 0
    second = model_env.requests[1]
    assert second.tool_results() == [INTERRUPTED]
    assert "Back again." in terminal.output


def without_api_keys(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    for name in list(os.environ):
        if name.endswith("_API_KEY") or name.endswith("_BASE_URL") or name == "TETHER_MODEL":
            monkeypatch.delenv(name)
    monkeypatch.setenv("TETHER_HOME", str(home))


def options_when(workspace: Path, ready: Callable[[], bool]) -> LazyOptions:
    """Options whose making, the first thing the REPL's startup thread does, waits until
    `ready()` holds: the session is built only then."""

    def make() -> RunOptions:
        while not ready():
            time.sleep(0.01)
        return RunOptions(cwd=workspace)

    return LazyOptions(cwd=workspace, make=make)


async def test_missing_api_key_returns_2_even_when_the_user_leaves_at_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, workspace: Path, terminal: Terminal
) -> None:
    without_api_keys(monkeypatch, tmp_path / "home")
    code = await terminal.run(workspace, CTRL_D)
    assert code == 2
    assert terminal.output.startswith("✻ tether ")
    message = terminal.output.split(KEYS_HINT + "\n\n", 1)[1]
    assert message.startswith("tether: ")
    assert "ANTHROPIC_API_KEY" in message


@pytest.mark.timeout(60)  # nothing is typed: only aborting the prompt ends this REPL
async def test_missing_api_key_aborts_the_prompt_and_returns_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, workspace: Path, terminal: Terminal
) -> None:
    without_api_keys(monkeypatch, tmp_path / "home")
    screen = Screen()
    options = options_when(workspace, lambda: "> " in screen.getvalue())
    with create_pipe_input() as pipe:
        code = await terminal.run_with(
            workspace, pipe, output=screen.prompt_output(), options=options
        )
    assert code == 2
    message = terminal.output.split(KEYS_HINT + "\n\n", 1)[1]
    assert message.startswith("tether: ")
    assert "ANTHROPIC_API_KEY" in message


@pytest.mark.timeout(60)  # a REPL that built its session before the prompt would hang here
async def test_the_prompt_is_drawn_before_the_session_is_built(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    screen = Screen()
    options = options_when(workspace, lambda: "> " in screen.getvalue())
    model_env.script(reply(text("Drawn first.")))
    with create_pipe_input() as pipe:
        pipe.send_text("hi\r" + CTRL_D)
        code = await terminal.run_with(
            workspace, pipe, output=screen.prompt_output(), options=options
        )
    assert code == 0
    assert "Drawn first." in terminal.output


@pytest.mark.timeout(60)
async def test_a_message_sent_before_the_session_is_ready_waits_for_it(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    history = Path(os.environ["TETHER_HOME"]) / "history"
    options = options_when(workspace, lambda: history.is_file() and "+early" in history.read_text())
    model_env.script(reply(text("Worth the wait.")))
    with create_pipe_input() as pipe:
        pipe.send_text("early\r" + CTRL_D)
        code = await terminal.run_with(workspace, pipe, options=options)
    assert code == 0
    assert [r.last_user_text() for r in model_env.requests] == ["early"]
    assert "Worth the wait." in terminal.output


@pytest.mark.timeout(60)
async def test_ctrl_c_drops_a_message_that_waits_for_the_session(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    release = threading.Event()
    options = options_when(workspace, release.is_set)
    model_env.script(reply(text("Only this one.")))
    try:
        with create_pipe_input() as pipe:
            pipe.send_text("never mind\r")
            repl = asyncio.create_task(terminal.run_with(workspace, pipe, options=options))
            # The blank line a turn starts with: the message now waits for the session.
            await terminal.wait_for(KEYS_HINT + "\n\n\n")
            os.kill(os.getpid(), signal.SIGINT)
            await terminal.wait_for(INTERRUPTED_HINT)
            release.set()
            pipe.send_text("this instead\r" + CTRL_D)
            assert await repl == 0
    finally:
        release.set()  # never leave the startup thread blocked
    assert [r.last_user_text() for r in model_env.requests] == ["this instead"]
    assert "Only this one." in terminal.output


async def test_lazy_options_are_made_off_the_prompt(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    made: list[str] = []

    def make() -> RunOptions:
        made.append(threading.current_thread().name)
        return RunOptions(cwd=workspace)

    model_env.script(reply(text("lazy")))
    with create_pipe_input() as pipe:
        pipe.send_text("hi\r" + CTRL_D)
        code = await run_repl(
            LazyOptions(cwd=workspace, make=make),
            input=pipe,
            output=DummyOutput(),
            console=terminal.console,
        )
    assert code == 0
    assert len(made) == 1
    assert made[0] != threading.main_thread().name
    assert "lazy" in terminal.output


# -- permission questions ---------------------------------------------------------------------
