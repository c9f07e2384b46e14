"""JSON whose nesting is bounded, for text that comes from outside (a model's tool arguments,
a hook's answer, a configuration file).

Python's parser recurses once per level: about a thousand nested brackets raise
`RecursionError` (not `ValueError`), and a value a few hundred levels deep that did parse
fails later, when pydantic serialises it (its limit is 255 levels). Checking the depth
before parsing turns both into a `ValueError` that says what is wrong.

It sits at the bottom layer beside `protocol`, so that every service can use it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

MAX_DEPTH = 100
"""Far deeper than any tool's input or configuration file needs, and far below where the
parser (about 1,000) or pydantic's serialiser (255) gives up."""

# A JSON string, unrolled so that long strings cost one pass: quote, runs of plain
# characters, escapes, closing quote. Brackets inside strings do not nest anything.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class NestedTooDeep(json.JSONDecodeError):
    """The text nests arrays and objects deeper than allowed. A `JSONDecodeError`, so that
    every caller that handles text which is not JSON handles this too, with no second case."""

    def __init__(self, depth: int, limit: int, text: str) -> None:
        super().__init__(f"nested {depth} levels deep, more than the {limit} allowed", text, 0)
        self.depth = depth
        self.limit = limit

    def __str__(self) -> str:
        return self.msg  # where it is (the start) adds nothing to what is wrong


def nesting_depth(text: str, *, stop_after: int | None = None) -> int:
    """How deeply arrays and objects nest in `text` (0 for a scalar); the count stops once
    it passes `stop_after`. Never recurses, so any text can be measured."""
    depth = deepest = 0
    for bracket in _BRACKET.finditer(_STRING.sub("", text)):
        if bracket.group() in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if stop_after is not None and deepest > stop_after:
                    break
        else:
            depth -= 1
    return deepest


class NumberTooLong(json.JSONDecodeError):
    """The text holds a whole number of more digits than Python reads (4,300 by default,
    `sys.get_int_max_str_digits`): `json.loads` raises a bare `ValueError` for it, which
    says neither where nor that the rest of the text is fine. A `JSONDecodeError`, so that
    callers handling text which is not JSON handle this too."""

    def __init__(self, digits: int, text: str, at: int) -> None:
        super().__init__(f"a number of {digits:,} digits, too long to read", text, max(at, 0))
        self.digits = digits


def loads(
    text: str | bytes, *, max_depth: int = MAX_DEPTH, long_numbers: list[int] | None = None
) -> Any:
    """`json.loads`, raising `NestedTooDeep` (a `ValueError`) for text nested deeper than
    `max_depth` instead of recursing into it. A whole number too long for Python to read
    raises `NumberTooLong`; with `long_numbers`, it is read as None instead, and its count
    of digits added to the list (for a caller that keeps the rest and says so)."""
    measured = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
    if measured.count("[") + measured.count("{") > max_depth:
        depth = nesting_depth(measured, stop_after=max_depth)
        if depth > max_depth:
            raise NestedTooDeep(nesting_depth(measured), max_depth, measured)
    return loads_numbers_read(text, long_numbers)


def loads_numbers_read(
    text: str | bytes,
    long_numbers: list[int] | None = None,
    *,
    read_long_as: Callable[[int], object] | None = None,
) -> Any:
    """`json.loads` (no bound on nesting), with `loads`' handling of numbers too long to
    read; `read_long_as(digits)`, when given, is what such a number is read as (else None).
    Text without one is parsed at full speed: the number hook runs only after the parser
    refused one."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError as e:
        if "integer string conversion" not in str(e):
            raise
    measured = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text

    def whole(digits: str) -> object:
        try:
            return int(digits)
        except ValueError:
            count = len(digits.lstrip("-"))
            if long_numbers is None:
                raise NumberTooLong(count, measured, measured.find(digits)) from None
            long_numbers.append(count)
            return None if read_long_as is None else read_long_as(count)

    return json.loads(text, parse_int=whole)


def error_text(error: json.JSONDecodeError) -> str:
    """What is wrong with the text and where, for a message: "Expecting ',' delimiter at line
    3, column 5". (Python's own wording for a control character ends in "at" already.)"""
    if isinstance(error, NestedTooDeep):
        return error.msg  # the whole text is too deep: no spot in it to name
    return f"{error.msg.removesuffix(' at')} at line {error.lineno}, column {error.colno}"
