"""App specs that are code: a web framework's or server's `MODULE:NAME` names the application
to import, and some forms run more than an import.

- A call (`flask --app 'subprocess:getoutput("CMD")'`, `gunicorn 'mod:make(1)'`, hypercorn's
  `mod:create()`, evaluated in the module): the module's function runs with those arguments,
  judged as the Python code `import MODULE; MODULE.CALL` (python_code.py reads it).
- A file or directory (`flask --app /x/app.py`, `--app dir/mod:app`): its code runs, judged as
  `python3 FILE` (outside the workspace: code no rule has seen, asked).

Flask reads the spec from `--app`/`-A` or `FLASK_APP` (set on the command); the servers from
their arguments (any word of the `MODULE:CALL(...)` shape).
"""

from __future__ import annotations

import re

from tether.permissions.entry_programs import entry_of
from tether.permissions.option_names import long_option
from tether.permissions.shell_words import is_literal

_MODULE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_CALL = re.compile(r"(?P<module>[^:]+):(?P<call>[A-Za-z_][\w.]*\s*\(.*\)\s*)", re.S)
_SERVERS = frozenset({"gunicorn", "uvicorn", "hypercorn", "daphne", "waitress-serve", "granian"})
_FLASK = frozenset({"flask"})


def app_code(
    argv: tuple[str, ...], assignments: tuple[tuple[str, str], ...]
) -> list[tuple[str, ...]]:
    """The commands that stand for what `argv`'s app spec runs besides an import: `python3 -c
    CODE` for a call, `python3 FILE` for a file; none for a plain `module:app`."""
    entry = entry_of(argv)
    if entry is None:
        return []
    name, args = entry
    specs: list[str] = []
    if name in _FLASK:
        specs += [value for key, value in assignments if key == "FLASK_APP"]
        specs += flask_apps(args)
        return [run for spec in specs for run in flask_runs(spec)]
    if name in _SERVERS:
        return [run for arg in args if (run := _call(arg)) is not None]
    return []


def flask_apps(args: tuple[str, ...]) -> list[str]:
    found: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg.startswith("--"):
            given = long_option(arg, ["--app"])
            if given is not None:
                found.append(given[1] if given[1] is not None else _next(args, i))
        elif arg == "-A":
            found.append(_next(args, i))
        elif arg.startswith("-A"):
            found.append(arg[2:].removeprefix("="))
    return found


def flask_runs(spec: str) -> list[tuple[str, ...]]:
    if not is_literal(spec):
        return [("python3", "-c", spec)]  # built as it runs: code not seen
    runs: list[tuple[str, ...]] = []
    place, _, _ = spec.partition(":")
    if "/" in place or place.endswith(".py"):
        runs.append(("python3", place))
    call = _call(spec.rpartition("/")[2].removesuffix(".py") if "(" not in place else spec)
    if call is not None:
        runs.append(call)
    return runs


def _call(spec: str) -> tuple[str, ...] | None:
    """`python3 -c CODE` for `MODULE:CALL(...)`: the module imported, the call made."""
    if not is_literal(spec):
        return None
    found = _CALL.fullmatch(spec)
    if found is None:
        return None
    module = found.group("module").rpartition("/")[2].removesuffix(".py")
    call = found.group("call").strip()
    if _MODULE.fullmatch(module) is None:
        return ("python3", "-c", call)
    return ("python3", "-c", f"import {module}\n{module}.{call}\n{call}")


def _next(args: tuple[str, ...], i: int) -> str:
    return args[i + 1] if i + 1 < len(args) else ""
