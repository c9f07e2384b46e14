"""The work one decision may do, counted in steps, so that every decision takes bounded time.

The parser has its own bounds (`shell_budget.py`: bytes, syntax nodes, simple commands); what
comes after it can still multiply: every word as a path from every directory a `cd` may have
left the shell in, every path against every rule, a glob against a rule as the product of two
automata. Each of those loops spends steps here, in proportion to its work (a path component
resolved, a rule matched against a path, four states of a glob product searched, 256
characters of command text a rule's pattern reads). Past `MAX_STEPS` the decision stops with
`OutOfSteps`, which the engine turns into "too large to judge", judged like code it cannot see
(denied where a deny rule exists, otherwise asked). Outside a decision (`metered` not
entered) nothing is counted.
"""

from __future__ import annotations

from collections.abc import Generator
from contextlib import contextmanager
from contextvars import ContextVar

MAX_STEPS = 20_000
"""Steps one decision may take. A step is about a microsecond of work (0.5 to 2 measured on a
busy machine), so this is some 10 to 40 ms, on top of the parse (`shell_budget.py`). An
ordinary command takes 100 to 250 steps; 300 file arguments, about 10,000; 1,000 file
arguments after a `cd`, too many."""

TOO_MUCH_WORK = "too large to judge"


class OutOfSteps(Exception):
    """The decision went past its steps."""


class StepMeter:
    """The steps one decision has taken."""

    __slots__ = ("limit", "used")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def spend(self, steps: int) -> None:
        self.used += steps
        if self.used > self.limit:
            raise OutOfSteps


_meter: ContextVar[StepMeter | None] = ContextVar("permission_steps", default=None)


def spend(steps: int = 1) -> None:
    """Count `steps` against the decision under way (none: nothing happens)."""
    meter = _meter.get()
    if meter is not None:
        meter.spend(steps)


def used() -> int | None:
    """The steps the decision under way has taken; None outside a decision."""
    meter = _meter.get()
    return None if meter is None else meter.used


@contextmanager
def metered(limit: int = MAX_STEPS) -> Generator[StepMeter]:
    """A decision's meter, for the code run inside the `with`."""
    meter = StepMeter(limit)
    token = _meter.set(meter)
    try:
        yield meter
    finally:
        _meter.reset(token)
