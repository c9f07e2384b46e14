"""The REPL, driven through a pipe instead of a keyboard, against the fake model server."""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput, Output
from prompt_toolkit.output.vt100 import Vt100_Output
from rich.console import Console

from tether.cli.repl import CLEARED, EXIT_HINT, INTERRUPTED_HINT, KEYS_HINT, NO_PLAN, run_repl
from tether.cli.setup import RunOptions
from tether.cli.startup import LazyOptions
from tether.config.settings import tether_home
from tether.config.trust import remembered_settings
from tether.core.loop import INTERRUPTED
from tether.testing import FakeModelServer, Reply, reply, text, tool_use

CTRL_C = "\x03"
CTRL_D = "\x04"
TAB = "\t"
ALT_ENTER = "\x1b\r"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


class Screen(io.StringIO):
    """A buffer that tells waiters when something was written to it."""

    def __init__(self) -> None:
        super().__init__()
        self.written = asyncio.Event()

    def write(self, s: str, /) -> int:
        self.written.set()
        return super().write(s)

    async def wait_for(self, needle: str, count: int = 1) -> None:
        await self.wait_until(lambda shown: shown.count(needle) >= count)

    async def wait_until(self, holds: Callable[[str], bool]) -> None:
        while not holds(self.getvalue()):
            self.written.clear()
            await self.written.wait()

    def prompt_output(self) -> Output:
        """An output for prompt_toolkit drawing here, escape sequences and all."""
        return Vt100_Output(self, lambda: Size(rows=24, columns=100), term="xterm")


TURN_END = " model call"
"""In the line that sums up a turn, once it is over (one such line a turn)."""

QUESTION = "  ? Allow this call? ("
"""Printed once for each permission question."""

PROMPT = "> "
"""Drawn by the message prompt."""

ANSWER_LINE = "then Enter: "
"""Drawn by the line that reads the answer to a permission question."""

APP_DRAWS, APP_ENDS = "\x1b[?2004h", "\x1b[?2004l"
"""Written by prompt_toolkit when an application draws afresh (bracketed paste on), which it
does only once it reads the keyboard, and when it ends (off)."""


def reading(drawn: str, marker: str) -> bool:
    """Whether the application that reads the keyboard now (if any) drew `marker`."""
    start = drawn.rfind(APP_DRAWS)
    return start >= 0 and APP_ENDS not in drawn[start:] and marker in drawn[start:]


@dataclass(frozen=True)
class Answer:
    """Keys typed once the next permission question is on screen and its answer line reads
    the keyboard: a user answers what they see."""

    keys: str


@dataclass(frozen=True)
class AfterTurn:
    """Keys typed once the next turn has ended and the message prompt reads the keyboard again.
    Keys typed while a turn runs are for that turn (they steer it), so a message meant as the
    next one waits for this."""

    keys: str


class Terminal:
    """A console buffer plus the keys the user types."""

    def __init__(self) -> None:
        self.buffer = Screen()
        self.console = Console(file=self.buffer, width=100, force_terminal=False)
        self.drawn = Screen()
        """What prompt_toolkit draws (the prompt, answer lines), escape sequences and all."""

    @property
    def output(self) -> str:
        return self.buffer.getvalue()

    async def run(
        self,
        workspace: Path,
        keys: str,
        initial_prompt: str | None = None,
        *,
        options: RunOptions | None = None,
    ) -> int:
        with create_pipe_input() as pipe:
            pipe.send_text(keys)
            return await self.run_with(workspace, pipe, initial_prompt, options=options)

    async def run_with(
        self,
        workspace: Path,
        pipe: PipeInput,
        initial_prompt: str | None = None,
        *,
        output: Output | None = None,
        options: RunOptions | LazyOptions | None = None,
    ) -> int:
        return await run_repl(
            options or RunOptions(cwd=workspace),
            initial_prompt=initial_prompt,
            input=pipe,
            output=output or self.drawn.prompt_output(),
            console=self.console,
        )

    async def wait_for(self, needle: str, count: int = 1) -> None:
        await self.buffer.wait_for(needle, count)

    async def type_steps(
        self, workspace: Path, *steps: str | Answer | AfterTurn, options: RunOptions | None = None
    ) -> int:
        """Run the REPL typing `steps` in order: text at once, each `Answer` and `AfterTurn`
        once the REPL reads the keys it is meant for."""
        questions = turns = 0
        with create_pipe_input() as pipe:
            repl = asyncio.create_task(self.run_with(workspace, pipe, options=options))
            for step in steps:
                if isinstance(step, Answer):
                    questions += 1
                    await self.wait_for(QUESTION, questions)
                    await self.drawn.wait_until(lambda drawn: reading(drawn, ANSWER_LINE))
                elif isinstance(step, AfterTurn):
                    turns += 1
                    await self.wait_for(TURN_END, turns)
                    await self.drawn.wait_until(lambda drawn: reading(drawn, PROMPT))
                pipe.send_text(step if isinstance(step, str) else step.keys)
            return await repl


@pytest.fixture
def terminal() -> Terminal:
    return Terminal()


def bash_turns(command: str, *closings: str) -> list[Reply]:
    """The model's side of one turn per closing: it runs `command` with Bash, then replies
    with the closing text."""
    return [
        r
        for said in closings
        for r in (reply(tool_use("Bash", command=command)), reply(text(said)))
    ]


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
    assert "Cost:    $0.0000\n" in out
    assert "Output:  0 tokens" in out
    assert CLEARED in out
    assert "Unknown command /frobnicate. Type /help for the commands." in out


async def test_cost_adds_up_the_turns(
    model_env: FakeModelServer, workspace: Path, terminal: Terminal
) -> None:
    model_env.script(
        reply(text("one"), usage={"input_tokens": 1000, "output_tokens": 20}),
        reply(text("two"), usage={"input_tokens": 1200, "output_tokens": 30}),
    )
    code = await terminal.type_steps(
        workspace, "a\r", AfterTurn("b\r"), AfterTurn("/cost\r/quit\r")
    )
    assert code == 0
    assert "Input:   2,200 tokens" in terminal.output
    assert "Output:  50 tokens" in terminal.output


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


def asking(workspace: Path) -> RunOptions:
    """Options under which a Bash command that no rule allows is asked about."""
    return RunOptions(cwd=workspace, permission_mode="default")


async def run_answering(
    terminal: Terminal, workspace: Path, *steps: str | Answer | AfterTurn
) -> int:
    """`Terminal.type_steps` under options that ask about Bash commands."""
    return await terminal.type_steps(workspace, *steps, options=asking(workspace))


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
