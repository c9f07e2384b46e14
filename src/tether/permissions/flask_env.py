"""The application flask takes from env files: `flask` loads `.env` and `.flaskenv` (each the
first found from the directory it starts in upward, as python-dotenv's `find_dotenv` looks)
and the file `--env-file`/`-e` names, and imports the `FLASK_APP` they set. A `FLASK_APP`
that is code (`subprocess:getoutput("...")`) runs as the command line's own `--app` would
(app_specs.py): judged as that code, whichever rule allows flask.

Read here from the disk (a bounded read of a few small files), since no word of the command
shows it.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable
from pathlib import Path

from tether.permissions.app_specs import flask_apps, flask_runs
from tether.permissions.entry_programs import entry_of
from tether.permissions.server_options import server_loads

_NAMES = (".env", ".flaskenv")
_LIMIT = 65536
_SETTING = re.compile(r"^\s*(?:export\s+)?FLASK_APP\s*=\s*(.*?)\s*$", re.M)


def reads_env_app(argv: tuple[str, ...], assignments: tuple[tuple[str, str], ...]) -> bool:
    """Whether `argv` is flask taking its application from the environment (no `--app`, no
    `FLASK_APP=` on the command)."""
    entry = entry_of(argv)
    if entry is None or entry[0] != "flask":
        return False
    return not flask_apps(entry[1]) and all(key != "FLASK_APP" for key, _ in assignments)


def env_app_commands(argv: tuple[str, ...], cwds: Iterable[Path | None]) -> list[tuple[Path, str]]:
    """(env file, command line) for what the FLASK_APP of each env file flask started in
    one of `cwds` reads runs besides an import (a directory not known: none read)."""
    return [
        (path, shlex.join(run))
        for cwd in cwds
        if cwd is not None
        for path in env_files(argv, cwd)
        for run in env_app_runs(path)
    ]


def env_files(argv: tuple[str, ...], cwd: Path) -> list[Path]:
    """The env files flask started in `cwd` with `argv` reads, that exist."""
    entry = entry_of(argv)
    if entry is None:
        return []
    found = [cwd / word for word in server_loads("flask", entry[1])]
    for name in _NAMES:
        level = cwd
        while True:
            if (level / name).is_file():
                found.append(level / name)
                break
            if level.parent == level:
                break
            level = level.parent
    return found


def env_app_runs(path: Path) -> list[tuple[str, ...]]:
    """What the `FLASK_APP` an env file sets runs besides an import (app_specs.flask_runs)."""
    try:
        with open(path, "rb") as file:
            text = file.read(_LIMIT).decode("utf-8", "replace")
    except (OSError, ValueError):
        return []
    runs: list[tuple[str, ...]] = []
    for found in _SETTING.finditer(text):
        spec = _value(found.group(1))
        runs += flask_runs(os.path.expandvars(spec)) if spec else []
    return runs


def _value(raw: str) -> str:
    """A value as python-dotenv reads it: a quoted one without its quotes (and a double-quoted
    one's escapes), an unquoted one as written up to a ` #` comment."""
    if raw[:1] in ("'", '"'):
        end = raw.find(raw[0], 1)
        inner = raw[1:end] if end > 0 else raw[1:]
        return inner.replace('\\"', '"') if raw[0] == '"' else inner
    return raw.partition(" #")[0].strip()
