"""Bounds on the analysis of one command, so that every decision takes bounded time.

A 700 KB heredoc with 50,000 substitutions, twelve nested `bash -c` (each level reads the text
again), a 20,000-stage pipeline: past these bounds the command is too large to judge, which
the policy treats as code it cannot see (denied where a deny rule exists, asked otherwise).
One budget is shared by a top-level command and every code string and substitution read
again inside it; running out raises `TooLarge` through the nested parses (so that no partial
result is cached) up to the top, which turns it into the problem.
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


class TooLarge(Exception):
    """The analysis went past one of the bounds."""


class Budget:
    """What one top-level analysis has used."""

    def __init__(self) -> None:
        self.bytes = 0
        self.nodes = 0
        self.commands = 0

    def text(self, length: int) -> None:
        self.bytes += length
        if self.bytes > MAX_PARSED_BYTES:
            raise TooLarge

    def node(self) -> None:
        self.nodes += 1
        if self.nodes > MAX_NODES:
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


def begin() -> Budget:
    budget = Budget()
    _local.budget = budget
    return budget


def end() -> None:
    _local.budget = None
