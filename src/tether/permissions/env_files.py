"""Env files a runtime loads into its own environment before it starts the code
(`node --env-file[-if-exists]=F` and the runners that take node's options, `tsx`; bun's and
deno's `--env-file`, `uv run --env-file F`, `UV_ENV_FILE`) or into the environment of the
command they run: the dotenv programs (python-dotenv's `dotenv -f F run`, dotenv-cli's
`dotenv -e F [-c ENV] --`, `dotenvx run -f`, `env-cmd -f`; `.env` when none is named; through
`npx`/`pnpm`/`yarn`/`bunx` (runner_argv) and `python3 -m dotenv` too). The variables they set
are set for the process as an assignment on the command line would set them. node reads
`NODE_OPTIONS` from the file as from the environment (`--require`, `--import`: code loaded
first), and what the code starts inherits the rest (`PATH`, `LD_PRELOAD`,
`GIT_SSH_COMMAND`); so each variable that changes what runs (dangerous_variables) is judged
as `NAME=VALUE COMMAND` is: code not seen.

The names are read loosely, as a superset of what a dotenv parser takes (`export NAME=`,
spaces around the name and `=`, a line inside a quoted value): one too many asks, none is
missed."""

from __future__ import annotations

import re

from tether.permissions.dangerous_variables import is_dangerous_variable
from tether.permissions.interpreter_scripts import module_call
from tether.permissions.node_runners import NODE_RUNNERS
from tether.permissions.option_names import dashed_options
from tether.permissions.runner_argv import runner_calls
from tether.permissions.shell_words import is_literal, program_name

_NODE = ("--env-file", "--env-file-if-exists")
_RUNTIMES: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("node", "nodejs", "esno", "nodemon", *NODE_RUNNERS), _NODE),
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
        # node reads `--env_file` as `--env-file` (bun's and deno's parsers do not).
        args = dashed_options(argv[1:]) if _RUNTIMES[name] is _NODE else argv[1:]
        return _values(args, _RUNTIMES[name])
    if name in _DOTENV:
        return _dotenv_files(name, argv[1:])
    calls = runner_calls(argv)
    if calls:  # `npx dotenv -e F -- CMD`, `pnpm exec tsx --env-file=F`
        return [w for c in calls if c.words for w in env_file_words(c.words, assignments)]
    call = module_call(argv)
    if call is not None and call.words[0] in _DOTENV:  # `python3 -m dotenv -f F run`
        return _dotenv_files(call.words[0], call.words[1:])
    if name == "uv" and argv[1:2] == ("run",):
        found = _values(argv[2:], ("--env-file",))
        found += [v for k, v in assignments if k == "UV_ENV_FILE"]
        return [] if "--no-env-file" in argv else found
    return []


_DOTENV: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("dotenv", "dotenv-cli"), ("-f", "--file", "-e")),
    "dotenvx": ("-f", "--env-file"),
    "env-cmd": ("-f", "--file"),
}
"""Programs that load env files into the command they run, and their options naming them."""


def _dotenv_files(name: str, args: tuple[str, ...]) -> list[str]:
    """The env files a dotenv program loads: those its options name, or `.env`; dotenv-cli's
    `-c [ENV]` cascade adds `.env.local`, `.env.ENV` and `.env.ENV.local`."""
    found = _values(args, _DOTENV[name]) or [".env"]
    if name in ("dotenv", "dotenv-cli") and "-c" in args:
        after = args[args.index("-c") + 1 : args.index("-c") + 2]
        env = [a for a in after if not a.startswith("-")]
        found += [".env.local", *(f".env.{e}{s}" for e in env for s in ("", ".local"))]
    return found


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
