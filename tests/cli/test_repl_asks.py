"""The REPL's permission questions, answered through a pipe: once, always, no, Ctrl+C and
SIGINT at the question, several in one turn."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input

from tests.cli.repl_terminal import (
    CTRL_C,
    CTRL_D,
    QUESTION,
    TAB,
    AfterTurn,
    Answer,
    Terminal,
    asking,
    bash_turns,
    run_answering,
)
from tether.config.settings import tether_home
from tether.config.trust import remembered_settings
from tether.core.loop import INTERRUPTED
from tether.testing import FakeModelServer, reply, text, tool_use


@pytest.mark.timeout(60)
async def test_allow_once_runs_the_call_and_the_next_call_is_asked_again(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    model_env.script(*bash_turns("echo one > made.txt && echo written", "Made it.", "Left it."))
    code = await run_answering(
        terminal,
        workspace,
        "make it\r",
        Answer("1\r"),
        AfterTurn("again\r"),
        Answer("n\r"),
        AfterTurn(CTRL_D),
    )
    assert code == 0
    assert (workspace / "made.txt").read_text() == "one\n"
    assert [r.last_user_text() for r in model_env.requests[::2]] == ["make it", "again"]
    assert model_env.requests[1].tool_results() == ["written"]
    assert model_env.requests[1].tool_result_errors() == [False]
    assert model_env.requests[3].tool_result_errors() == [True]
    out = terminal.output
    assert out.count(QUESTION) == 2
    assert "● Bash(echo one > made.txt && echo written)\n  ? Allow this call? (writes " in out
    assert "  ✓ Allowed once\n  ⎿  written\n" in out
    assert "Made it." in out


@pytest.mark.timeout(60)
async def test_deny_tells_the_model_and_runs_nothing(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    model_env.script(*bash_turns("touch made.txt", "Understood.", "Fine."))
    code = await run_answering(
        terminal,
        workspace,
        "make it\r",
        Answer("3\r"),
        AfterTurn("try again\r"),
        Answer(TAB + "use the other file\r"),
        AfterTurn(CTRL_D),
    )
    assert code == 0
    assert not (workspace / "made.txt").exists()
    assert model_env.requests[1].tool_result_errors() == [True]
    assert model_env.requests[1].tool_results()[0].startswith("The user denied this call")
    assert model_env.requests[3].tool_results() == ["The user denied this call: use the other file"]
    assert "  ⎿  The user denied this call: use the other file\n" in terminal.output


@pytest.mark.timeout(60)
async def test_always_allow_saves_the_rule_and_is_not_asked_again(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    model_env.script(*bash_turns("touch made.txt", "Made it.", "Made it again."))
    code = await run_answering(
        terminal, workspace, "make it\r", Answer("2\r"), AfterTurn("again\r"), AfterTurn(CTRL_D)
    )
    assert code == 0
    assert model_env.requests[1].tool_result_errors() == [False]
    assert model_env.requests[3].tool_result_errors() == [False]
    out = terminal.output
    assert out.count(QUESTION) == 1
    saved = json.loads(remembered_settings(tether_home(), workspace).read_text())
    assert list(saved) == ["permissions"]
    [rule] = saved["permissions"]["allow"]
    assert f"    2  Yes, and always allow {rule} for this project\n" in out
    assert f"  ✓ Always allowed for this project: {rule}\n" in out
    assert "Made it again." in out


@pytest.mark.timeout(60)
async def test_asks_in_one_turn_come_one_after_another(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    model_env.script(
        reply(tool_use("Bash", command="touch a.txt"), tool_use("Bash", command="touch b.txt")),
        reply(text("One of two.")),
    )
    code = await run_answering(
        terminal, workspace, "make both\r", Answer("y\r"), Answer("n\r"), AfterTurn(CTRL_D)
    )
    assert code == 0
    assert (workspace / "a.txt").exists()
    assert not (workspace / "b.txt").exists()
    assert model_env.requests[1].tool_result_errors() == [False, True]
    out = terminal.output
    assert out.index("● Bash(touch a.txt)") < out.index("✓ Allowed once")
    assert out.index("✓ Allowed once") < out.index("● Bash(touch b.txt)")


@pytest.mark.timeout(60)
async def test_ctrl_c_at_the_question_denies_and_interrupts_the_turn(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    model_env.script(*bash_turns("touch made.txt", "Back again."))
    code = await run_answering(
        terminal,
        workspace,
        "make it\r",
        Answer(CTRL_C),
        AfterTurn("carry on\r"),
        AfterTurn(CTRL_D),
    )
    assert code == 0
    assert not (workspace / "made.txt").exists()
    second = model_env.requests[1]
    # As Claude Code: the conversation says the user interrupted, before the next prompt.
    assert second.last_user_text() == "[Request interrupted by user for tool use]\ncarry on"
    assert second.tool_results() == [INTERRUPTED]
    assert "  ⎿  Interrupted\n" in terminal.output
    assert "Back again." in terminal.output


@pytest.mark.timeout(60)
async def test_sigint_at_the_question_denies_and_interrupts_the_turn(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    model_env.script(*bash_turns("touch made.txt", "Back again."))
    with create_pipe_input() as pipe:
        pipe.send_text("make it\r")
        repl = asyncio.create_task(terminal.run_with(workspace, pipe, options=asking(workspace)))
        await terminal.wait_for(QUESTION)
        os.kill(os.getpid(), signal.SIGINT)
        await terminal.wait_for("  ⎿  Interrupted\n")
        pipe.send_text("carry on\r" + CTRL_D)
        assert await repl == 0
    assert not (workspace / "made.txt").exists()
    assert model_env.requests[1].tool_results() == [INTERRUPTED]
    assert "Back again." in terminal.output
