"""Reading the answer to a permission question: one key, or Tab and a message for the model."""

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
        ("1", "allow_once"),
        ("y", "allow_once"),
        ("2", "allow_always"),
        ("3", "deny"),
        ("n", "deny"),
        (ESC, "deny"),
        (CTRL_D, "deny"),
        (CTRL_C, "interrupt"),
    ],
)
async def test_one_key_answers(keys: str, meaning: str) -> None:
    assert await answer(keys) == (meaning, None)


async def test_other_keys_are_ignored_and_2_needs_a_rule_to_remember() -> None:
    assert await answer("\rx 2y", can_remember=False) == ("allow_once", None)


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
