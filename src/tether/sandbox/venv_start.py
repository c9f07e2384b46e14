"""Python's start files in the workspace's virtual environments, for the start-up file sweep.

Every later `python` of such an environment, outside the sandbox (the user's, an editor's
language server, `pip list`), runs the `import` lines of each `.pth` file in its
`site-packages` and imports `sitecustomize` and `usercustomize`. The sweep does not walk
environments (`start_sweep.NOT_WALKED`: `pip install` fills them with code the next command
runs anyway), so their start files are looked up here: the `site-packages` of each
environment (a directory with a `pyvenv.cfg`) at a root, one level below it, or in `.tox`
or `.nox`. What a command made or changed there is judged as the sweep's other start files,
but for a `.pth` that is data (`pth_is_data`): `pip install -e` of a `src` layout writes
one with the project's path only.

An environment's entry files are looked up too, for the environments that were there when the
session's sweeps began (by path: one a command deleted and made again at the same path is the
same environment): its `pyvenv.cfg`, activation scripts and interpreter links, which the user's
next `. .venv/bin/activate` or `.venv/bin/python` runs outside. Packages install no such file,
so a command that changes one is not installing: it is moved aside. An environment a command
makes at a new path is the command's, as a repository it makes is: nothing of it is judged
(`python -m venv` and `uv venv` inside keep working). An environment present when a command
starts has its `site-packages` and `bin` bound read-only for it (`installed_code.py`), so these
files are judged here only in the environments commands made.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path

from tether.sandbox.nofollow import read_regular_file

_ENVIRONMENT_HOLDERS = frozenset({".tox", ".nox"})
"""Directories whose children are environments (tox's and nox's, one per session)."""
CUSTOMIZE = ("sitecustomize", "usercustomize")
MAX_PTH = 1024 * 1024


def _environments(root: str) -> list[str]:
    found: list[str] = []
    pending = [(root, 0)]
    while pending:
        directory, depth = pending.pop()
        if os.path.isfile(os.path.join(directory, "pyvenv.cfg")):
            found.append(directory)
            continue
        if depth >= 2:
            continue
        with contextlib.suppress(OSError), os.scandir(directory) as entries:
            for entry in entries:
                if not entry.is_dir(follow_symlinks=False) or entry.name == "node_modules":
                    continue
                holder = entry.name in _ENVIRONMENT_HOLDERS
                if depth == 0 or holder or os.path.basename(directory) in _ENVIRONMENT_HOLDERS:
                    pending.append((entry.path, depth + (0 if holder else 1)))
    return found


def site_dirs(environment: str) -> list[str]:
    found: list[str] = []
    for lib in ("lib", "lib64", "Lib"):
        base = os.path.join(environment, lib)
        if os.path.islink(base):
            continue  # lib64 -> lib: the same directory
        with contextlib.suppress(OSError), os.scandir(base) as entries:
            for entry in entries:
                if entry.name == "site-packages":
                    found.append(entry.path)
                elif entry.name.startswith("python") and entry.is_dir(follow_symlinks=False):
                    found.append(os.path.join(entry.path, "site-packages"))
    return [d for d in found if os.path.isdir(d) and not os.path.islink(d)]


def _is_start(name: str) -> bool:
    return name.endswith(".pth") or name.split(".")[0] in CUSTOMIZE


def environments(roots: Iterable[str]) -> list[str]:
    """The virtual environments under `roots` (at a root, one level below, in `.tox`/`.nox`)."""
    return [e for root in roots for e in _environments(root)]


def _is_entry(name: str) -> bool:
    return name.startswith(("activate", "Activate", "python", "pypy"))


def venv_start_files(roots: Iterable[str], entered: frozenset[str] = frozenset()) -> list[str]:
    """The start files (or a `sitecustomize` package's directory) in the site directories of
    the environments under `roots`, present now; and, of the environments in `entered`, what
    runs when one is activated or its interpreter started: `pyvenv.cfg` (its `home` picks the
    interpreter and the standard library), `pip.conf`/`pip.ini` (the environment's pip
    settings: its index, find-links), `bin/activate*` (sourced into the user's shell),
    `bin/python*` (the interpreter itself)."""
    found: list[str] = []
    for environment in environments(roots):
        for site in site_dirs(environment):
            for directory in (site, os.path.join(site, "__pycache__")):
                with contextlib.suppress(OSError), os.scandir(directory) as entries:
                    found += [e.path for e in entries if _is_start(e.name)]
        if environment not in entered:
            continue
        # `pyvenv.cfg`; pip's configuration inside the environment (`$VIRTUAL_ENV/pip.conf`,
        # `pip.ini`), read by every later `pip` of it outside: an index or find-links there
        # chooses what the user's next install builds and runs.
        found += [os.path.join(environment, n) for n in ("pyvenv.cfg", "pip.conf", "pip.ini")]
        with contextlib.suppress(OSError), os.scandir(os.path.join(environment, "bin")) as entries:
            found += [e.path for e in entries if _is_entry(e.name)]
    return found


def pth_is_data(path: str) -> bool:
    """Whether `path` is a `.pth` file Python only reads paths from: a regular file with no
    `import` line (the lines Python executes), and no directory it names holding a
    `sitecustomize` or `usercustomize` (imported from the whole path at start)."""
    if not path.endswith(".pth") or os.path.basename(os.path.dirname(path)) == "__pycache__":
        return False
    data = read_regular_file(Path(path), MAX_PTH)
    if data is None or len(data) >= MAX_PTH:
        return False
    site = os.path.dirname(path)
    for raw in data.decode("utf-8", "replace").splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(("import ", "import\t")):
            return False
        named = os.path.join(site, line)
        with contextlib.suppress(OSError), os.scandir(named) as entries:
            if any(e.name.split(".")[0] in CUSTOMIZE for e in entries):
                return False
    return True
