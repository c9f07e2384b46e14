"""httpx2's and httpcore2's versions read without `importlib.metadata`, in a process of
tether's own.

`httpx2.__version__` (imported by httpx2 itself, for its User-Agent) and `httpcore2` ask
`importlib.metadata.version(...)` as they load, which imports `importlib.metadata` with `csv`
and `zipfile` and parses the package's METADATA as an e-mail message: some 24 M instructions,
2 % of a headless start to its first request, for two strings. `read_http_version_quickly`
puts a finder ahead on `sys.meta_path` that runs those modules' own code with one change: the
`version` it imports from `importlib.metadata` is `installed_version`, which reads the same
`Version:` field from the same place (the first `<name>-*.dist-info` on `sys.path`, in the
order `importlib.metadata` searches it) and asks `importlib.metadata` itself whenever it finds
no such directory or no such field (an egg, a zip, an unusual install). So the module, its
title, description and version are what they would be (their `version` name is
`installed_version`); only the cost differs.
"""

from __future__ import annotations

import builtins
import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType, SimpleNamespace
from typing import Any

from tether.import_finders import put_finder_first, take_finder_away

_MODULES = frozenset({"httpx2.__version__", "httpcore2"})
"""The modules that ask `importlib.metadata` for their package's version as they load."""
_METADATA = "importlib.metadata"


def read_http_version_quickly() -> None:
    """Have httpx2's version module read its version without `importlib.metadata`, when
    httpx2 is not imported yet, in a process of tether's own (on its main thread): a program
    that runs tether's command line on a thread keeps its import system as it is."""
    if threading.current_thread() is not threading.main_thread():
        return
    waiting = {name for name in _MODULES if name not in sys.modules}
    if waiting and not any(isinstance(finder, _QuickVersionFinder) for finder in sys.meta_path):
        put_finder_first(_QuickVersionFinder(waiting))


def installed_version(name: str) -> str:
    """The `Version:` of the first `<name>-*.dist-info` directory on `sys.path` (the
    distribution `importlib.metadata.version(name)` reads), or that function's answer when
    that is not what comes first (an egg, a zip on the path) or it has no such field."""
    wanted = _normalized(name)
    for entry in sys.path:
        place = entry or "."
        try:
            names = os.listdir(place)
        except NotADirectoryError:
            break  # a zip: importlib.metadata reads inside it
        except OSError:
            continue
        found = next((n for n in names if _info_of(n) == wanted), None)
        if found is not None:
            if found.lower().endswith(".dist-info"):
                version = _version_field(os.path.join(place, found, "METADATA"))
                if version is not None:
                    return version
            break
    from importlib.metadata import version

    return version(name)


def _normalized(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def _info_of(entry: str) -> str | None:
    """The distribution a `<name>[-<version>].dist-info` (or `.egg-info`) directory describes,
    normalized; None for any other entry."""
    stem, dot, suffix = entry.lower().rpartition(".")
    if not dot or suffix not in ("dist-info", "egg-info"):
        return None
    return _normalized(stem.partition("-")[0])


def _version_field(path: str) -> str | None:
    """The `Version:` header of a METADATA file, None when it has none or cannot be read."""
    try:
        with open(path, encoding="utf-8") as file:
            for line in file:
                if not line.strip():
                    return None  # the headers' end
                key, colon, value = line.partition(":")
                if colon and key.strip().lower() == "version":
                    return value.strip()
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _import_with_quick_version(
    name: str,
    globals: Mapping[str, object] | None = None,
    locals: Mapping[str, object] | None = None,
    fromlist: Sequence[str] = (),
    level: int = 0,
) -> Any:
    """`__import__` for those modules: `from importlib.metadata import version`
    gets `installed_version`; any other import is the ordinary one."""
    if name == _METADATA and level == 0 and tuple(fromlist) == ("version",):
        return SimpleNamespace(version=installed_version)
    return builtins.__import__(name, globals, locals, fromlist, level)


class _QuickVersionFinder:
    """Finds each of `waiting` as the path does and runs its code with
    `_import_with_quick_version` for its imports; then, all found, steps aside (out of a new
    `sys.meta_path`, so that a walk of the old one on another thread goes on undisturbed)."""

    def __init__(self, waiting: set[str]) -> None:
        self.waiting = waiting

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in self.waiting:
            return None
        self.waiting.discard(fullname)
        if not self.waiting:
            take_finder_away(self)
        spec = PathFinder.find_spec(fullname, path, target)
        loader = spec.loader if spec is not None else None
        get_code: Callable[[str], Any] | None = getattr(loader, "get_code", None)
        if spec is None or loader is None or get_code is None:
            return spec
        code = get_code

        def exec_module(module: ModuleType) -> None:
            namespace = vars(module)
            namespace["__builtins__"] = {
                **vars(builtins),
                "__import__": _import_with_quick_version,
            }
            try:
                exec(code(fullname), namespace)  # the module's own code
            finally:
                namespace["__builtins__"] = vars(builtins)

        loader.exec_module = exec_module  # this spec's loader, made for this import
        return spec
