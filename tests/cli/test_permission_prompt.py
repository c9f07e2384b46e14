"""Reading the answer to a permission question: an answer and Enter, a key that answers at once,
or Tab and a message for the model."""

from __future__ import annotations

import asyncio
import io

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output

from tether.cli.ask import read_permission_answer

CTRL_C = "\x03"
CTRL_D = "\x04"
ESC = "\x1b"
TAB = "\t"


class Screen(io.StringIO):
    """What prompt_toolkit draws, escape sequences and all; waiters learn of each write."""

    def __init__(self) -> None:
        super().__init__()
        self.written = asyncio.Event()
        self.output = Vt100_Output(self, lambda: Size(rows=24, columns=100), term="xterm")

    def write(self, s: str, /) -> int:
        self.written.set()
        return super().write(s)

    async def wait_for(self, needle: str) -> None:
        while needle not in self.getvalue():
            self.written.clear()
            await self.written.wait()


async def answer(keys: str, *, can_remember: bool = True) -> tuple[str, str | None]:
    with create_pipe_input() as pipe:
        pipe.send_text(keys)
        return await read_permission_answer(pipe, DummyOutput(), can_remember=can_remember)


@pytest.mark.parametrize(
    ("keys", "meaning"),
    [
        ("1\r", "allow_once"),
        ("y\r", "allow_once"),
        ("Yes\r", "allow_once"),
        ("2\r", "allow_always"),
        ("3\r", "deny"),
        ("n\r", "deny"),
        (ESC, "deny"),
        (CTRL_D, "deny"),
        (CTRL_C, "interrupt"),
    ],
)
async def test_answers(keys: str, meaning: str) -> None:
    assert await answer(keys) == (meaning, None)


async def test_answer_keys_inside_other_text_answer_nothing() -> None:
    # "y" in "quickly", "n" in "when": typed on by a user who did not see the question.
    assert await answer("quickly\rwhen\r\r1\r") == ("allow_once", None)


async def test_2_alone_keeps_no_rule_for_good_without_enter() -> None:
    # "2" typed on into the question, then Esc: no rule saved for good without Enter.
    assert await answer("2" + ESC) == ("deny", None)
    assert await answer("1") == ("allow_once", None)


async def test_2_needs_a_rule_to_remember() -> None:
    assert await answer("2\r3\r", can_remember=False) == ("deny", None)


async def test_tab_denies_with_a_message_for_the_model() -> None:
    assert await answer(TAB + "use the other file\r") == ("tell", "use the other file")
    assert await answer(TAB + "\r") == ("tell", None)
    assert await answer(TAB + "stop" + CTRL_C) == ("interrupt", None)


async def test_esc_while_typing_the_message_denies_without_it() -> None:
    screen = Screen()
    with create_pipe_input() as pipe:
        pipe.send_text(TAB + "never mind")
        reading = asyncio.create_task(
            read_permission_answer(pipe, screen.output, can_remember=True)
        )
        # A lone Esc is told from an escape sequence by a pause after it: send it apart.
        await screen.wait_for("never mind")
        pipe.send_text(ESC)
        assert await reading == ("tell", None)


async def test_a_closed_input_interrupts() -> None:
    with create_pipe_input() as pipe:
        pipe.close()
        assert await read_permission_answer(pipe, DummyOutput(), can_remember=True) == (
            "interrupt",
            None,
        )
