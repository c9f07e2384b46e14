"""Usage counts an endpoint gives that cannot be token counts (`"output_tokens": "many"`, a
negative number, one of thousands of digits): not counted nor priced, and named once, so a
session that cannot count its spend says so instead of showing a cost that is too low."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from tether.protocol import Usage, is_token_count
from tether.protocol.messages import NESTED_USAGE_COUNTS

SHOWN_CHARS = 40


def unread_counts(given: Mapping[str, object], names: Iterable[str]) -> dict[str, str]:
    """Each of `names` that `given` holds with a value that is no token count, as shown to
    the user; a count left out, or null, is only unknown (endpoints leave some out)."""
    unread: dict[str, str] = {}
    for name in names:
        value = given.get(name)
        if value is not None and not is_token_count(value):
            unread[name] = _shown(value)
    return unread


def said_beside(
    given: Mapping[str, object], before: Usage, unread: dict[str, str]
) -> dict[str, Any]:
    """What `given` (a usage object of the Messages API's stream, cumulative) says beside
    the token counts, as `Usage`'s fields: each one present replaces `before`'s; one that is
    no count is noted in `unread` and `before`'s kept; the service tier as the API names it."""
    said: dict[str, Any] = {}
    for nested, names in NESTED_USAGE_COUNTS.items():
        inner = given.get(nested)
        if not isinstance(inner, dict):
            continue
        found = {str(k): v for k, v in inner.items()}  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
        for name in names:
            if is_token_count(value := found.get(name)):
                said[name] = value
        unread.update(unread_counts(found, names))
    tier = given.get("service_tier")
    if isinstance(tier, str):
        said["service_tier"] = tier
    kept = ("service_tier", *(name for names in NESTED_USAGE_COUNTS.values() for name in names))
    return {name: said.get(name, getattr(before, name)) for name in kept}


class SaidOnce:
    """Whether an adapter named unread counts already: the first reply with some names
    them (`ResponseDone.unread_usage`), later ones do not."""

    def __init__(self) -> None:
        self._said = False

    def first(self, unread: Mapping[str, str]) -> tuple[str, ...]:
        if self._said or not unread:
            return ()
        self._said = True
        return tuple(f"{name}={value}" for name, value in unread.items())


def _shown(value: object) -> str:
    if isinstance(value, str) and value.startswith("a number of "):
        text = f"({value})"  # too long to read (`Endpoint.event_object`)
    else:
        text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 3] + "..."
