"""Bounds on the analysis of one command, so that every decision takes bounded time.

A 700 KB heredoc with 50,000 substitutions, twelve nested `bash -c` (each level reads the text
again), a 20,000-stage pipeline: past these bounds the command is too large to judge, which
the policy treats as code it cannot see (denied where a deny rule exists, asked otherwise).
One budget is shared by a top-level command and every code string and substitution read
again inside it; running out raises `TooLarge` through the nested parses (so that no partial
result is cached) up to the top, which turns it into the problem.

Besides those counts, reading spends steps (as `steps.py` counts a decision's judging): a
syntax node walked, wherever it is walked (the walker, a word's parts, an arithmetic
expression searched), and every `CHARACTERS_PER_STEP` characters a loop of the reader goes
over, spent before the loop runs. Every scan of the reader is linear in its input, so the steps
of a command grow as its size does, and `MAX_READ_STEPS` bounds the whole read. The steps a
read took are kept with its result (`Script.steps`), nested reads included, and a nested read
found in the parse cache spends them again: the same text always costs the same.
"""

from __future__ import annotations

import threading

TOO_LARGE = "too large to judge"
MAX_BYTES = 100_000
"""The longest command read at all. A 1,000-line file written by a heredoc is about 40 KB; a
370-line shell script has some 2,600 syntax nodes and 300 simple commands."""
MAX_PARSED_BYTES = 400_000
"""All text parsed for one command, code strings read again included."""
MAX_NODES = 6_000
MAX_COMMANDS = 1_000
MAX_READ_STEPS = 30_000
"""Steps one command's read may take (a step is about a microsecond: some 30 to 50 ms at most). A
1,000-line heredoc full of substitutions takes some 20,000; a 370-line script, 6,000."""
CHARACTERS_PER_STEP = 8
"""Characters a Python loop of the reader goes over in about a microsecond."""


class TooLarge(Exception):
    """The analysis went past one of the bounds."""


class Budget:
    """What one top-level analysis has used."""

    def __init__(self) -> None:
        self.bytes = 0
        self.nodes = 0
        self.commands = 0
        self.steps = 0

    def spend(self, steps: int) -> None:
        self.steps += steps
        if self.steps > MAX_READ_STEPS:
            raise TooLarge

    def text(self, length: int) -> None:
        self.bytes += length
        if self.bytes > MAX_PARSED_BYTES:
            raise TooLarge

    def node(self) -> None:
        self.nodes += 1
        self.steps += 1
        if self.nodes > MAX_NODES or self.steps > MAX_READ_STEPS:
            raise TooLarge

    def command(self) -> None:
        self.commands += 1
        if self.commands > MAX_COMMANDS:
            raise TooLarge


_local = threading.local()


def current() -> Budget | None:
    """The budget of the analysis under way on this thread, if any."""
    budget: Budget | None = getattr(_local, "budget", None)
    return budget


def spend(steps: int) -> None:
    """Count `steps` against the read under way on this thread (none: nothing happens)."""
    budget: Budget | None = getattr(_local, "budget", None)
    if budget is not None:
        budget.spend(steps)


def scan(text: str | bytes) -> None:
    """Count a loop over `text`, one step per `CHARACTERS_PER_STEP` characters and one for the
    loop itself, before it runs."""
    spend(1 + len(text) // CHARACTERS_PER_STEP)


def begin() -> Budget:
    budget = Budget()
    _local.budget = budget
    return budget


def end() -> None:
    _local.budget = None
