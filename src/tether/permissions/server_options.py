"""Code and configuration that app servers, web frameworks and task queues load from the files
their options name: a server's Python configuration (`gunicorn -c file:PATH`, hypercorn's
`--config file:PATH`), a logging configuration (`--log-config`: `fileConfig` evaluates an
ini's `args=`, `dictConfig` calls a `()` factory), a PasteDeploy file (`gunicorn --paste`),
an env file that sets the application to import (`flask --env-file`, `FLASK_APP=...`), a
directory put on `sys.path` (`--pythonpath`, `--app-dir`, `rq -P`), a configuration module
given as a path (`celery --config`).

One table, keyed by the program's or `-m` module's name and each option's spelling, with the
kind of value it takes. Each program's option parser decides the spellings it takes: `--x=v`
and `--x v` always; `-xV`, `-x=V` and short options grouped before it (`-Rcfile:x`, with the
program's value-less short options); any unambiguous prefix of a long option where the
parser takes one (argparse, optparse, getopt; not click). `GUNICORN_CMD_ARGS` is read as
gunicorn's own options.

`server_loads` gives the paths (outside_code: outside the workspace, code no rule has seen,
asked; a file a Read rule denies, denied); `server_code` the code given on the line
(`--log-config-dict` with a factory), judged as Python that imports and calls it.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from tether.permissions.interpreter_code import CodeUse
from tether.permissions.option_names import long_option
from tether.permissions.shell_words import DYN, is_literal


class Kind(Enum):
    FILE = "file"
    """A file or directory whose code runs or that names code (`hypercorn --log-config
    json:PATH` and `toml:`/`file:` prefixes are stripped)."""
    CONFIG = "config"
    """gunicorn's and hypercorn's `-c`: `file:PATH` or a path is a file run as Python (or read
    as TOML); `python:MODULE` is a module imported, as the app spec's own module is."""
    MODULE = "module"
    """A configuration module (`celery --config`, `rq -c`): a dotted name is imported as the
    app's modules are; a path (`/x/cfg`, `cfg.py`) is a file."""
    PATHS = "paths"
    """Directories put on `sys.path`, separated by `,` or `:`."""
    LOGGING_DICT = "dict"
    """A logging dictionary given inline (JSON): its `()` factories and `class`es are called."""


@dataclass(frozen=True)
class Server:
    options: Mapping[str, Kind]
    prefixes: bool = False
    """Whether the parser takes a long option's unambiguous prefix (argparse, optparse)."""
    flags: str = ""
    """Short options that take no value, which may be grouped before a valued one."""


_GUNICORN_LOGS: Mapping[str, Kind] = {
    "--log-config": Kind.FILE,
    "--log-config-json": Kind.FILE,
    "--log-config-dict": Kind.LOGGING_DICT,
}
SERVERS: Mapping[str, Server] = {
    "gunicorn": Server(
        {
            "-c": Kind.CONFIG,
            "--config": Kind.CONFIG,
            **_GUNICORN_LOGS,
            "--paste": Kind.FILE,
            "--paster": Kind.FILE,
            "--chdir": Kind.FILE,
            "--pythonpath": Kind.PATHS,
        },
        prefixes=True,
        flags="RDv",
    ),
    "hypercorn": Server(
        {"-c": Kind.CONFIG, "--config": Kind.CONFIG, "--log-config": Kind.FILE}, prefixes=True
    ),
    "uvicorn": Server(
        {"--log-config": Kind.FILE, "--env-file": Kind.FILE, "--app-dir": Kind.FILE},
    ),
    "granian": Server(
        {
            "--log-config": Kind.FILE,
            "--env-files": Kind.FILE,
            "--working-dir": Kind.FILE,
            "--app-dir": Kind.FILE,
        },
    ),
    "flask": Server({"-e": Kind.FILE, "--env-file": Kind.FILE}),
    "celery": Server(
        {"--config": Kind.MODULE, "--workdir": Kind.FILE, "--loader": Kind.MODULE},
    ),
    "dramatiq": Server({"-P": Kind.PATHS, "--path": Kind.PATHS}, prefixes=True),
    "rq": Server(
        {"-c": Kind.MODULE, "--config": Kind.MODULE, "-P": Kind.PATHS, "--path": Kind.PATHS},
    ),
}
"""By the program's (or `python3 -m` module's) name: the options whose value is code or
configuration the program loads. daphne, waitress-serve, huey's consumer and arq load only the
application or settings module their positional names (app_specs.py; a module is imported as
the app's own are); their other options read no code."""

_ENVIRONMENT_OPTIONS: Mapping[str, str] = {"GUNICORN_CMD_ARGS": "gunicorn"}
_STRIPPED = ("file:", "json:", "toml:", "yaml:", "ini:")


def server_loads(
    name: str, args: tuple[str, ...], assignments: tuple[tuple[str, str], ...] = ()
) -> tuple[str, ...]:
    """Paths `name` (an app server, framework or task queue) loads code or configuration from,
    given `args` (and the environment its command sets)."""
    server = SERVERS.get(name)
    if server is None:
        return ()
    args = (*_from_environment(name, assignments), *args)
    found: list[str] = []
    for kind, value in _values(server, args):
        found += _paths(kind, value)
    return tuple(found)


def server_code(name: str, args: tuple[str, ...]) -> CodeUse | None:
    """The code a logging dictionary given on the line calls (`--log-config-dict`)."""
    server = SERVERS.get(name)
    if server is None:
        return None
    for kind, value in _values(server, args):
        if kind is not Kind.LOGGING_DICT:
            continue
        parsed = _parsed(value)
        if parsed is None:  # built as it runs, or not JSON: not seen
            return CodeUse("-c", None, only_input=False, source=f"{name}'s logging dictionary")
        code = _dict_code(parsed)
        if code is not None:
            return CodeUse("-c", code, language="python")
    return None


def _from_environment(name: str, assignments: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    words: list[str] = []
    for key, value in assignments:
        if _ENVIRONMENT_OPTIONS.get(key) != name:
            continue
        try:
            words += shlex.split(value) if is_literal(value) else [DYN]
        except ValueError:
            words.append(DYN)
    return tuple(words)


def _values(server: Server, args: tuple[str, ...]) -> list[tuple[Kind, str]]:
    """(kind, value) for each table option `args` give, in each spelling the parser takes."""
    longs = [option for option in server.options if option.startswith("--")]
    shorts = {option[1:]: kind for option, kind in server.options.items() if len(option) == 2}
    found: list[tuple[Kind, str]] = []
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg.startswith("--"):
            given = long_option(arg, longs, prefixes=server.prefixes)
            if given is not None:
                value = given[1] if given[1] is not None else _next(args, i)
                found.append((server.options[given[0]], value))
            continue
        if not arg.startswith("-") or len(arg) < 2:
            continue
        for at in range(1, len(arg)):
            letter = arg[at]
            if letter in shorts:
                value = arg[at + 1 :].removeprefix("=") or _next(args, i)
                found.append((shorts[letter], value))
                break
            if letter not in server.flags:
                break
    return found


def _paths(kind: Kind, value: str) -> list[str]:
    if not is_literal(value):
        return [value]  # chosen as it runs
    if kind is Kind.PATHS:
        return [part for part in value.replace(",", ":").split(":") if part]
    if kind is Kind.CONFIG and value.startswith("python:"):
        return []
    if kind is Kind.MODULE:
        return [value] if "/" in value or value.endswith(".py") else []
    if kind is Kind.LOGGING_DICT:
        return []
    for prefix in _STRIPPED:
        if value.startswith(prefix):
            return [value.removeprefix(prefix)]
    return [value]


def _parsed(value: str) -> object | None:
    if not is_literal(value):
        return None
    try:
        return json.loads(value)
    except ValueError:
        return None


def _dict_code(parsed: object) -> str | None:
    """Python that imports and calls each factory and class a logging dictionary names; None
    when it names none."""
    names: list[str] = []
    _callables(parsed, names)
    lines: list[str] = []
    for dotted in names:
        module, _, attribute = dotted.removeprefix("ext://").rpartition(".")
        lines += [f"import {module}", f"{module}.{attribute}()"] if module else [f"{attribute}()"]
    return "\n".join(lines) or None


def _callables(node: object, names: list[str]) -> None:
    if isinstance(node, dict):
        for key, item in node.items():  # pyright: ignore[reportUnknownVariableType]
            if key in ("()", "class") and isinstance(item, str):
                names.append(item)
            else:
                _callables(item, names)
    elif isinstance(node, list):
        for item in node:  # pyright: ignore[reportUnknownVariableType]
            _callables(item, names)


def _next(args: tuple[str, ...], i: int) -> str:
    return args[i + 1] if i + 1 < len(args) else DYN
