"""`OsText`: a tool input field that becomes a path, a command or a program's argument. A NUL
byte ends a C string: `execve` and `open` refuse it (Python raises `ValueError`); the call's
check says so instead, as an error the model reads. Imported by the built-in tools' input
models (pydantic's), at a tool's first call.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError


def _os_text(value: str) -> str:
    position = value.find("\x00")
    if position >= 0:
        raise PydanticCustomError(
            "nul_byte",
            "holds a NUL byte (character {position}); no path, command or argument can hold one",
            {"position": position + 1},
        )
    return value


OsText = Annotated[str, AfterValidator(_os_text)]
"""A string that becomes a path, a command or an argument of a program."""
