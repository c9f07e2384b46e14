"""What a dotted name of inline Python reaches, read from the modules of this Python: the
harmless list (python_tables.py) is of calls and attributes, not of modules, so a module's
attribute is followed to what it is. A module re-exported as an attribute (`posixpath.os`,
`uuid.os`, `json.decoder.re`) is that module (`os.system`, judged as `os.system` is); a
function that is one the tables name (`io.open` is `open`) is that function; a private name
(`random._os`, `uuid._get_command_stdout`, `collections._sys`) is code not seen.

Only modules of the harmless list are imported here (the standard library's: computing and
describing, none running code when imported), and only from the standard library's own
directories: a file of the same name anywhere else is never imported into tether."""

from __future__ import annotations

import functools
import importlib
import importlib.util
import sys
import sysconfig
from dataclasses import dataclass
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

from tether.permissions.python_tables import (
    ARGV_RUNS,
    EVALUATES,
    HARMLESS_MODULES,
    READS,
    SAFE_DUNDERS,
    SHELL_RUNS,
    WRITES,
)

MAX_PARTS = 32
"""Attributes of a dotted name followed (past them, not seen)."""


@dataclass(frozen=True)
class Reached:
    name: str
    """The name it stands for (`posixpath.os.system` -> `os.system`)."""
    problem: str | None = None
    """Why what it reaches is not seen (a private name), if so."""
    missing: bool = False
    """A module's attribute this Python lacks (another version's may run anything)."""


@functools.cache
def _import(name: str) -> ModuleType | None:
    if name not in HARMLESS_MODULES and name not in _TABLE_MODULES:
        return None
    try:
        return _standard(name)
    except Exception:  # a module this Python lacks is one not known
        return None


def _standard(name: str) -> ModuleType | None:
    """The standard library's module `name`, imported; None when the name would be found
    anywhere else first (a `json.py` in the directory tether was started from, when that is
    on `sys.path`): what the workspace holds is never run in tether's own process."""
    found = sys.modules.get(name)
    if found is not None:
        return found if _in_standard_library(getattr(found, "__spec__", None)) else None
    parent = name.rpartition(".")[0]
    if parent and _standard(parent) is None:
        return None
    spec = importlib.util.find_spec(name)
    if not _in_standard_library(spec):
        return None
    return importlib.import_module(name)


def _in_standard_library(spec: ModuleSpec | None) -> bool:
    if spec is None:
        return False
    if spec.origin in ("built-in", "frozen"):
        return True
    if spec.origin is None:
        return False
    where = Path(spec.origin).resolve()
    return any(where.is_relative_to(d) for d in _STANDARD_DIRS) and not any(
        where.is_relative_to(d) for d in _INSTALLED_DIRS
    )


_PATHS = sysconfig.get_paths()
_STANDARD_DIRS = tuple({Path(_PATHS[k]).resolve() for k in ("stdlib", "platstdlib")})
_INSTALLED_DIRS = tuple({Path(_PATHS[k]).resolve() for k in ("purelib", "platlib")})


_TABLE_MODULES = frozenset({"builtins", "os", "subprocess", "shutil"})
"""Where the functions the tables name live (asyncio and pty are not imported here: no
harmless module holds them)."""


@functools.cache
def _named() -> dict[int, str]:
    """The functions the tables name, by identity (`io.open` is `open`)."""
    found: dict[int, str] = {}
    for name in sorted(SHELL_RUNS | ARGV_RUNS | set(READS) | set(WRITES) | EVALUATES):
        module, _, attr = name.rpartition(".")
        owner = _import(module or "builtins")
        value: object = getattr(owner, attr, None) if owner is not None else None
        if callable(value):
            found.setdefault(id(value), name)
    return found


@functools.lru_cache(maxsize=4096)
def reach(name: str) -> Reached:
    """What `name` (`MODULE.attr.attr...`, aliases already replaced) stands for."""
    parts = name.split(".")
    end = next(
        (e for e in range(len(parts) - 1, 0, -1) if ".".join(parts[:e]) in HARMLESS_MODULES),
        0,
    )
    if end == 0:
        return Reached(name)
    if len(parts) > MAX_PARTS:
        return Reached(name, "reaches a name too long to follow")
    module = ".".join(parts[:end])
    owner = _import(module)
    if owner is None:
        return Reached(name)
    for i in range(end, len(parts)):
        attr, rest = parts[i], parts[i + 1 :]
        if attr.startswith("_") and attr not in SAFE_DUNDERS:
            if attr.startswith("__") and attr.endswith("__"):
                return Reached(name)  # Python's internals: judged where they are read
            return Reached(name, f"reaches {module}.{attr}, a private name of {module}")
        try:
            value: object = getattr(owner, attr)
        except Exception:  # not there (or raising): not known
            return Reached(".".join([module, *parts[i:]]), missing=True)
        if isinstance(value, ModuleType):
            module, owner = value.__name__, value
            continue
        known = _named().get(id(value))
        return Reached(".".join([known or f"{module}.{attr}", *rest]))
    return Reached(module)
