"""Command-line text that is not UTF-8: Python gives each byte it cannot decode as a lone
surrogate (`surrogateescape`), which no store can hold (SQLite refuses to encode it; Redis
would store bytes its readers refuse). Refused once, where the arguments are read, before any
store is opened: one precise message, the same whichever store."""

from __future__ import annotations

import argparse

from tether.protocol import ConfigError


def check_utf8_args(args: argparse.Namespace, *, what: dict[str, str] | None = None) -> None:
    """A `ConfigError` naming the first string argument in `args` that is not UTF-8 text and
    its first undecodable byte; `what` names an argument for the user (by its dest)."""
    names = what or {}
    for dest, value in vars(args).items():
        for text in value if isinstance(value, list) else [value]:
            if not isinstance(text, str):
                continue
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as e:
                code = ord(text[e.start])
                bad = f"byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"
                said = names.get(dest, dest.replace("_", "-"))
                raise ConfigError(
                    f"{said} is not UTF-8 text ({bad} at character {e.start + 1}): nothing done"
                ) from None
