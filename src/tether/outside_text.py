"""Text from outside (argv, the environment, paths, JSON from a client or a file) made fit to
send and to print, where it enters.

Python keeps bytes that are not UTF-8 (in argv, environment variables, file names) as lone
surrogates (`surrogateescape`), and JSON may spell a lone surrogate (`"\\ud800"`). Such text has
no UTF-8 form: one string of it in a request body, a stream-json line or a message makes the
write fail, and with it the run. Each boundary passes what it brings through one helper here:

- `encodable`, `encodable_value`: every lone surrogate becomes U+FFFD, the replacement
  character (for text: prompts, system prompts, settings, a client's requests).
- `shown_path`: a path as text, its undecodable bytes shown as `\\xff` escapes (a path must
  stay the path it was, so it is never changed where it is used, only where it is shown).
- `error_summary`: an unexpected error in one bounded line (an exception's repr can hold a
  whole request body).
- `undecodable_setting`, `not_text`: an environment variable of ours that is not UTF-8 (a URL,
  a key, a model, a number), named precisely at start-up, before anything reads it; a place on
  disk (`HOME`, `TETHER_HOME`, `CLAUDE_CONFIG_DIR`) may hold any bytes a path may.

It sits at the bottom layer beside `protocol`, so that every service can use it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import PurePath
from typing import Any, cast

_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"
ERROR_CHARS = 300
"""An unexpected error is described in at most this many characters."""


def encodable(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD; `text` itself when it has none."""
    return _SURROGATE.sub(REPLACEMENT, text) if _has_lone_surrogate(text) else text


def encodable_value(value: Any) -> Any:
    """A JSON-like value (tool input) with every string, keys included, made `encodable`;
    the same object when nothing in it needs a change. Walks without recursion: tool input
    may be nested as deep as the model likes."""
    if not _has_surrogate(value):
        return value
    return _rebuilt(value)


def shown_path(path: str | PurePath) -> str:
    """`path` as text that can be printed and sent: undecodable bytes as `\\xNN` escapes."""
    text = os.fspath(path)
    if not _has_lone_surrogate(text):
        return text
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no undecodable byte gives (from JSON, say)
        return encodable(text)
    return raw.decode("utf-8", "backslashreplace")


def error_summary(error: BaseException) -> str:
    """An unexpected error in one line: its type and the start of its message, encodable.
    Not its repr: a `UnicodeEncodeError`'s repr holds the whole text it failed on."""
    message = " ".join(str(error).split())
    if len(message) > ERROR_CHARS:
        message = message[:ERROR_CHARS] + f"... ({len(message):,} characters)"
    return encodable(f"{type(error).__name__}: {message}" if message else type(error).__name__)


SETTING_PREFIXES = (
    "ANTHROPIC_",
    "TETHER_",
    "CLAUDE_",
    "OPENAI_",
    "OPENROUTER_",
    "OLLAMA_",
    "VLLM_",
    "LLAMACPP_",
)
"""Environment variables tether (or Claude Code) reads as settings, by the start of the name:
the providers' keys and URLs included."""
_PLACES = ("_HOME", "_DIR", "_PATH", "_FILE")
"""Endings of the names of those that are a place on disk: any bytes make a path (Python keeps
the ones that are not UTF-8 as surrogates, and gives them back to the OS as they were)."""


def undecodable_setting(env: Mapping[str, str]) -> str | None:
    """Why the environment cannot be used, or None: a setting of ours (`SETTING_PREFIXES`) that
    is not UTF-8 would fail deep inside a request or a header (see `not_text`). Places on disk
    are left as the OS gave them."""
    for name in sorted(env):
        if name.startswith(SETTING_PREFIXES) and not name.endswith(_PLACES):
            problem = not_text(name, env[name])
            if problem is not None:
                return problem
    return None


def not_text(name: str, value: str) -> str | None:
    """None when the variable `name` holds text; else one sentence naming it and the position
    of its first byte that is not UTF-8. Never the value: it may be a key."""
    if not _has_lone_surrogate(value):
        return None
    first_char = _SURROGATE.search(value)
    assert first_char is not None
    raw = value.encode("utf-8", "surrogateescape") if _escaped(value) else b""
    first = len(value[: first_char.start()].encode("utf-8", "surrogatepass"))
    byte = f"byte 0x{raw[first]:02x}" if raw else "a lone surrogate"
    return (
        f"{name} is not valid UTF-8 ({byte} at position {first}); set it again as text, or unset it"
    )


def _escaped(text: str) -> bool:
    try:
        text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return False
    return True


def _has_lone_surrogate(text: str) -> bool:
    # In a Python string every surrogate is a lone one: a valid pair is decoded to one code point.
    return not text.isascii() and _SURROGATE.search(text) is not None


def _has_surrogate(value: Any) -> bool:
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _has_lone_surrogate(item):
                return True
        elif isinstance(item, Mapping):
            mapping = cast(Mapping[Any, Any], item)
            stack.extend(mapping.keys())
            stack.extend(mapping.values())
        elif isinstance(item, list | tuple):
            stack.extend(cast(Sequence[Any], item))
    return False


def _rebuilt(value: Any) -> Any:
    """A copy of `value` with its strings made encodable, built bottom-up without recursion."""
    # Post-order walk: a container is rebuilt once all of its children are.
    done: dict[int, Any] = {}
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        item, expanded = stack.pop()
        if isinstance(item, str):
            done[id(item)] = encodable(item)
        elif isinstance(item, Mapping | list | tuple) and not expanded:
            stack.append((item, True))
            children: Iterable[Any] = (
                [*cast(Mapping[Any, Any], item).keys(), *cast(Mapping[Any, Any], item).values()]
                if isinstance(item, Mapping)
                else cast(Sequence[Any], item)
            )
            stack.extend((child, False) for child in children)
        elif isinstance(item, Mapping):
            mapping = cast(Mapping[Any, Any], item)
            done[id(item)] = {_get(done, k): _get(done, v) for k, v in mapping.items()}
        elif isinstance(item, list | tuple):
            done[id(item)] = [_get(done, child) for child in cast(Sequence[Any], item)]
    return _get(done, value)


def _get(done: dict[int, Any], item: Any) -> Any:
    return done.get(id(item), item) if isinstance(item, str | Mapping | list | tuple) else item
