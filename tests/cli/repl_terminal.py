"""The REPL driven through a pipe instead of a keyboard: the terminal the tests type into
and read (`Terminal`), its keys and markers, and the model's side of common turns."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import Output
from prompt_toolkit.output.vt100 import Vt100_Output
from rich.console import Console

from tether.cli.repl import run_repl
from tether.cli.setup import RunOptions
from tether.cli.startup import LazyOptions
from tether.testing import Reply, reply, text, tool_use

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

ANSWER_LINE = "press 1"
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


def bash_turns(command: str, *closings: str) -> list[Reply]:
    """The model's side of one turn per closing: it runs `command` with Bash, then replies
    with the closing text."""
    return [
        r
        for said in closings
        for r in (reply(tool_use("Bash", command=command)), reply(text(said)))
    ]


def asking(workspace: Path) -> RunOptions:
    """Options under which a Bash command that no rule allows is asked about."""
    return RunOptions(cwd=workspace, permission_mode="default")


async def run_answering(
    terminal: Terminal, workspace: Path, *steps: str | Answer | AfterTurn
) -> int:
    """`Terminal.type_steps` under options that ask about Bash commands."""
    return await terminal.type_steps(workspace, *steps, options=asking(workspace))
