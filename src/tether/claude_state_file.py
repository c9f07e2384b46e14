"""Claude Code's state file (`~/.claude.json`), read once per change and shared by every reader.

Several parts of tether read it at start-up (MCP servers of two scopes, Claude Code's `/mcp`
decisions, trust answers, its external-imports answers), and it keeps Claude Code's history of
every project, so it may be large: it is read and parsed again only when its identity changes
(device, inode, size, modification time), and a failed read is the same failure until then.

The parsed copy is shared, so it is frozen: its objects and arrays are a `dict` and a `list`
(every `isinstance` check holds) that refuse to change; `dict(x)`, `list(x)` and
`copy.deepcopy(x)` give a copy of one's own to change.
"""

from __future__ import annotations

import copy
import json
import os
import threading
from pathlib import Path
from typing import Any, NoReturn

from tether import bounded_json
from tether.text_files import read_text_file

LIMIT_BYTES = 64 * 1024 * 1024
"""It keeps Claude Code's history of every project: it gets more room than configuration."""

_Identity = tuple[int, int, int, int]

_lock = threading.Lock()
_memo: dict[Path, tuple[_Identity, object | None, Exception | None]] = {}


def read_claude_state(path: Path) -> object | None:
    """What the file holds (frozen, shared), `{}` for an empty one, None when there is no
    file. Raises `UnreadableFile` or `json.JSONDecodeError` (`bounded_json.NestedTooDeep`),
    the same one again until the file changes."""
    try:
        st = os.stat(path)
    except OSError:
        return _read(path)  # absent (None), or the read says why it cannot be read
    identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    with _lock:
        known = _memo.get(path)
    if known is None or known[0] != identity:
        try:
            known = (identity, _read(path), None)
        except (OSError, json.JSONDecodeError) as e:
            known = (identity, None, e)
        with _lock:
            _memo[path] = known
    if known[2] is not None:
        raise known[2]
    return known[1]


def _read(path: Path) -> object | None:
    text = read_text_file(path, limit_bytes=LIMIT_BYTES)
    if text is None:
        return None
    # Claude Code reads the file with a byte-order mark (an editor on Windows may add one).
    text = text.removeprefix("\ufeff")
    return frozen(bounded_json.loads(text) if text.strip() else {})


def frozen(value: object) -> object:
    """`value` (parsed JSON) with every object and array made one that refuses to change."""
    if isinstance(value, dict):
        return FrozenDict((k, frozen(v)) for k, v in value.items())  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list):
        return FrozenList(frozen(v) for v in value)  # pyright: ignore[reportUnknownVariableType]
    return value


def _refuse(*_: object, **__: object) -> NoReturn:
    raise TypeError("Claude Code's state is shared by every reader: change a copy of it")


class FrozenDict(dict[str, Any]):
    """A JSON object of the shared state: reads as a dict, refuses every change."""

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __deepcopy__(self, memo: dict[int, object]) -> dict[str, Any]:
        return {k: copy.deepcopy(v, memo) for k, v in self.items()}

    def __copy__(self) -> dict[str, Any]:
        return dict(self)


class FrozenList(list[Any]):
    """A JSON array of the shared state: reads as a list, refuses every change."""

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = remove = pop = clear = sort = reverse = _refuse

    def __deepcopy__(self, memo: dict[int, object]) -> list[Any]:
        return [copy.deepcopy(v, memo) for v in self]

    def __copy__(self) -> list[Any]:
        return list(self)
