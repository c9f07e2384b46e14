"""Text in a tool call that no operating system or encoder can take, found while the call's
arguments are checked, so that it becomes an error the model reads instead of an exception
deep inside a tool (a NUL byte in a path or command: `tether.tools.os_text`).

- `find_unencodable`: a lone surrogate (`"\\ud800"` is valid JSON, but not Unicode text)
  anywhere in the arguments: it can be neither a file name, nor UTF-8 in a file, nor sent on
  to a model or an MCP server.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from tether.slotted import Slotted


class Unencodable(Slotted):
    """Where a lone surrogate is: the field's dotted path, its 1-based character position,
    the code point."""

    __slots__ = ("code_point", "field", "position")
    field: Final[str]
    position: Final[int]
    code_point: Final[int]

    def __init__(self, field: str, position: int, code_point: int) -> None:
        self.field = field
        self.position = position
        self.code_point = code_point

    def describe(self) -> str:
        return (
            f"{self.field}: holds a lone surrogate (U+{self.code_point:04X} at character "
            f"{self.position}), which is not Unicode text and cannot be written, run or "
            "sent; use the character itself, or escape a pair of surrogates together"
        )


def find_unencodable(arguments: Mapping[str, Any]) -> Unencodable | None:
    """The first string (key or value, at any depth) holding a lone surrogate, or None."""
    pending: list[tuple[str, Any]] = [(str(k), v) for k, v in reversed(list(arguments.items()))]
    for key in arguments:
        found = _lone_surrogate(str(key))
        if found is not None:
            return Unencodable(str(key), *found)
    while pending:
        where, value = pending.pop()
        if isinstance(value, str):
            found = _lone_surrogate(value)
            if found is not None:
                return Unencodable(where, *found)
        elif isinstance(value, Mapping):
            items = list(value.items())  # pyright: ignore[reportUnknownArgumentType]
            for key, _ in items:
                found = _lone_surrogate(str(key))
                if found is not None:
                    return Unencodable(f"{where}.{key}", *found)
            pending.extend((f"{where}.{k}", v) for k, v in reversed(items))
        elif isinstance(value, list | tuple):
            elements = list(value)  # pyright: ignore[reportUnknownArgumentType]
            pending.extend((f"{where}.{i}", v) for i, v in reversed(list(enumerate(elements))))
    return None


def _lone_surrogate(text: str) -> tuple[int, int] | None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        return e.start + 1, ord(text[e.start])
    return None
