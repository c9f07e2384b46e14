"""A call as the repeat guard compares it (`repeated_calls`): its tool and its input
normalized so that small changes that cannot change the outcome give the same signature, and a
failing call's error normalized alike."""

from __future__ import annotations

import json
import posixpath
import shlex

from tether.protocol import ToolUseBlock

_DEPTH = 16
"""Input nested deeper than this is cut in a signature (it stays whole in the call)."""


def signature(call: ToolUseBlock) -> str:
    """A call as the guard compares it: its tool and its input, normalized so that small
    changes that cannot change the outcome (a path's `./`, a shell comment, blanks, a number
    such as an offset) give the same signature."""
    return call.name + "\0" + json.dumps(_normal(call.input, "", 0), ensure_ascii=True)


def _normal(value: object, key: str, depth: int) -> object:
    if depth > _DEPTH:
        return "..."
    if isinstance(value, dict):
        items = sorted((str(k), v) for k, v in value.items() if not _numeric(v))  # type: ignore[misc]
        return {k: _normal(v, k, depth + 1) for k, v in items}
    if isinstance(value, list):
        return [_normal(v, key, depth + 1) for v in value if not _numeric(v)]  # type: ignore[misc]
    if isinstance(value, str):
        return _text(value, key)
    return value


def _numeric(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _text(value: str, key: str) -> str:
    if key == "command":
        try:
            return " ".join(shlex.split(value, comments=True))
        except ValueError:  # unbalanced quotes: blanks only
            return " ".join(value.split())
    if key.endswith("path") and value.strip():
        return posixpath.normpath(value.strip())
    return " ".join(value.split())


def error_text(call: ToolUseBlock, said: str) -> str:
    """A failing call's error as the guard compares it: the input's strings as given replaced
    by their normalized form (an error that quotes `./x` or `x` is the same), blanks collapsed."""
    given = [(str(k), v) for k, v in call.input.items() if isinstance(v, str) and v.strip()]
    for key, value in sorted(given, key=lambda kv: -len(kv[1])):
        said = said.replace(value, _text(value, key))
    return " ".join(said.split())
