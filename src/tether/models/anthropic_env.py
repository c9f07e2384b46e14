"""Claude Code's variables for reaching the Anthropic API through a gateway or a proxy:
`ANTHROPIC_AUTH_TOKEN` (sent as `Authorization: Bearer <token>`) and `ANTHROPIC_CUSTOM_HEADERS`
(more headers, one `Name: value` a line). Read for the `anthropic` provider only, as Claude Code
reads them for its Anthropic client; a value that cannot go in an HTTP header is said in one
sentence before any request."""

from __future__ import annotations

import re
from collections.abc import Mapping

from tether.protocol import ConfigError

AUTH_TOKEN_ENV = "ANTHROPIC_AUTH_TOKEN"
CUSTOM_HEADERS_ENV = "ANTHROPIC_CUSTOM_HEADERS"

_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
"""An HTTP header name: a token (RFC 9110 section 5.6.2)."""


def auth_token(env: Mapping[str, str]) -> str | None:
    """The bearer token of `ANTHROPIC_AUTH_TOKEN`, None when unset or blank."""
    token = env.get(AUTH_TOKEN_ENV, "").strip()
    if not token:
        return None
    if not token.isascii() or not token.isprintable():
        raise ConfigError(
            f"{AUTH_TOKEN_ENV} holds a character that cannot go in an HTTP header "
            "(not printable ASCII): set it again, or unset it"
        )
    return token


def custom_headers(env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The headers of `ANTHROPIC_CUSTOM_HEADERS`: one `Name: value` a line, blank lines skipped,
    the name and the value stripped of surrounding spaces, as Claude Code splits them."""
    found: list[tuple[str, str]] = []
    for number, line in enumerate(env.get(CUSTOM_HEADERS_ENV, "").splitlines(), start=1):
        if not line.strip():
            continue
        name, colon, value = line.partition(":")
        name, value = name.strip(), value.strip()
        where = f"{CUSTOM_HEADERS_ENV} line {number}"
        if not colon or not _HEADER_NAME.fullmatch(name):
            raise ConfigError(
                f"{where} is not a header: write one `Name: value` a line "
                f"(got {line.strip()[:60]!r})"
            )
        if not value.isascii() or not (value.isprintable() or not value):
            raise ConfigError(
                f"{where}: the value of {name} holds a character that cannot go in an HTTP "
                "header (not printable ASCII)"
            )
        found.append((name, value))
    return tuple(found)
