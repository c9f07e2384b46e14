"""What a team member may be called: a name that is a file name, a mailbox key and a word in a
message, the same on every machine."""

from __future__ import annotations

import re

from tether.protocol import ConfigError

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def check_member_name(name: str) -> str:
    """`name`, or `ConfigError` saying what a name may hold."""
    if not _NAME.fullmatch(name):
        raise ConfigError(
            f"member name {name!r}: use letters, digits, '-', '_' or '.', starting with a "
            "letter or digit, at most 64 characters"
        )
    return name
