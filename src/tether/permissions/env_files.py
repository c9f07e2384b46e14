"""Env files a runtime loads into its own environment before it starts the code
(`node --env-file[-if-exists]=F`, bun's and deno's `--env-file`, `uv run --env-file F`,
`UV_ENV_FILE`): the variables they set are set for the process as an assignment on the
command line would set them. node reads `NODE_OPTIONS` from the file as from the
environment (`--require`, `--import`: code loaded first), and what the code starts inherits
the rest (`PATH`, `LD_PRELOAD`, `GIT_SSH_COMMAND`); so each variable that changes what runs
(dangerous_variables) is judged as `NAME=VALUE COMMAND` is: code not seen.

The names are read loosely, as a superset of what a dotenv parser takes (`export NAME=`,
spaces around the name and `=`, a line inside a quoted value): one too many asks, none is
missed."""

from __future__ import annotations

import re

from tether.permissions.dangerous_variables import is_dangerous_variable
from tether.permissions.shell_words import is_literal, program_name

_RUNTIMES: dict[str, tuple[str, ...]] = {
    "node": ("--env-file", "--env-file-if-exists"),
    "nodejs": ("--env-file", "--env-file-if-exists"),
    "bun": ("--env-file",),
    "deno": ("--env-file",),
}
_NAME = re.compile(r"^[ \t\f\v]*(?:export[ \t]+)?([^\s=#]+)[ \t]*=", re.M)


def env_file_words(argv: tuple[str, ...], assignments: tuple[tuple[str, str], ...]) -> list[str]:
    """The env files, as written, that `argv` loads into the environment of what it runs."""
    if not argv or not is_literal(argv[0]):
        return []
    name = program_name(argv[0])
    if name in _RUNTIMES:
        return _values(argv[1:], _RUNTIMES[name])
    if name == "uv" and argv[1:2] == ("run",):
        found = _values(argv[2:], ("--env-file",))
        found += [v for k, v in assignments if k == "UV_ENV_FILE"]
        return [] if "--no-env-file" in argv else found
    return []


def dangerous_settings(text: str) -> list[str]:
    """The variables an env file's text sets that change what programs run or load."""
    return sorted({m.group(1) for m in _NAME.finditer(text) if is_dangerous_variable(m.group(1))})


def _values(args: tuple[str, ...], options: tuple[str, ...]) -> list[str]:
    """Each of `options`' values (`--opt X`, `--opt=X`) up to `--`; past the script too (one
    read too many is an ask at most)."""
    found: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            break
        name, eq, value = arg.partition("=")
        if name in options:
            if eq:
                found.append(value)
            elif i + 1 < len(args):
                found.append(args[i + 1])
    return found
