"""The program a command line runs as an entry point: its own name (`./manage.py`, `flask`,
`bin/rails`), the script an interpreter runs (`python3 manage.py`, `ruby bin/rails`, `php
artisan`), or the module it runs (`python3 -m django`, `python3 -m pylint`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

from tether.permissions.interpreter_scripts import module_call
from tether.permissions.run_as_main import module_that_runs
from tether.permissions.shell_words import is_literal, program_name

_INTERPRETERS: Mapping[str, str] = {
    "python": "python",
    "python3": "python",
    "python2": "python",
    "pypy3": "python",
    "pypy": "python",
    "ruby": "ruby",
    "php": "php",
    "elixir": "elixir",
}
_VERSIONED = re.compile(r"(python|ruby|php)[0-9][0-9.]*")
_INTERPRETER_VALUED = frozenset({"-W", "-X", "-I", "-r", "-C", "-E", "-d", "-c", "-x"})
"""Interpreters' options taking a separate value, before the script (`php -c php.ini`, `ruby
-I lib`); code options (`python3 -c`, `ruby -e`) are interpreter_code's."""


RUNNER_MODULES: Mapping[str, str] = {
    **{name: name for name in ("tox", "nox", "pdm", "hatch", "pipx", "poetry", "pipenv", "uv")},
    **{name: name for name in ("invoke", "doit", "snakemake", "mkdocs", "twine", "build")},
    **{name: name for name in ("pip", "pip3")},
    "poethepoet": "poe",
    "poe": "poe",
    "pre_commit": "pre-commit",
    "SCons": "scons",
    "conda": "conda",
    "conda_env": "conda-env",
    "mesonbuild": "meson",
}
"""Task and package runners as `python3 -m MODULE`, by the program each is (`python3 -m
poethepoet` is `poe`): one table, so each is judged as the runner itself, its project files
and launched commands read and the rules naming the program holding."""
_WHOLE_PACKAGES = frozenset({"conda", "conda_env", "mesonbuild"})
"""Runners any submodule of which runs as the program (`python3 -m conda.cli.main` is conda,
`-m mesonbuild.mesonmain` is meson); conda's per-command packages name the subcommand
(`-m conda.cli.env.config.vars.set` is `conda env config vars set`)."""
PROGRAM_ALIASES: Mapping[str, tuple[str, ...]] = {"conda-env": ("conda", "env")}
"""Programs that are another's subcommand under their own name (conda's old `conda-env`
entry point is `conda env`): judged as that command, with the rules naming either holding."""


def runner_module(argv: tuple[str, ...]) -> tuple[str, ...] | None:
    """`RUNNER ARGS` for `python3 [OPTIONS] -m MODULE ARGS` of a module RUNNER_MODULES
    knows; None otherwise."""
    if not argv or not is_literal(argv[0]):
        return None
    name = program_name(argv[0])
    if not (_INTERPRETERS.get(name) == "python" or name.startswith(("python", "pypy"))):
        return None
    entry = entry_of(argv)
    if entry is None:
        return None
    module, args = entry
    top, _, sub = module.partition(".")
    runner = RUNNER_MODULES.get(module)
    if runner is None and top in _WHOLE_PACKAGES:
        runner = RUNNER_MODULES[top]
        words = sub.split(".")
        if words[:2] == ["cli", "env"] or words[:1] == ["env"]:
            # conda's per-command packages: `conda.cli.env.config.vars.set` is `conda env
            # config vars set`.
            return (runner, *words[words.index("env") :], *args)
    return (runner, *args) if runner is not None else None


@functools.lru_cache(maxsize=1024)
def entry_of(argv: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
    """(the entry's name, its arguments), or None when no literal entry is named."""
    if not argv or not is_literal(argv[0]):
        return None
    name = program_name(argv[0])
    versioned = _VERSIONED.fullmatch(name)
    if name not in _INTERPRETERS and versioned is None:
        return name, argv[1:]
    if _INTERPRETERS.get(name) == "python" or name.startswith("python"):
        # Python's own command line, read once (interpreter_scripts): `-m MOD`, `-mMOD`,
        # `-Im MOD`, `-X dev -m MOD`.
        called = module_call(argv)
        if called is not None:
            module, *rest = module_that_runs(called.words)
            return _package(module), tuple(rest)
    i = 1
    while i < len(argv):
        arg = argv[i]
        if arg == "-m" and i + 1 < len(argv):
            module, *rest = module_that_runs(argv[i + 1 :])
            return _package(module), tuple(rest)
        if arg == "--":
            i += 1
            break
        if not arg.startswith("-") or arg == "-":
            break
        i += 2 if arg in _INTERPRETER_VALUED else 1
    if i >= len(argv) or not is_literal(argv[i]):
        return None
    return program_name(argv[i]), argv[i + 1 :]


def _package(module: str) -> str:
    """`pip.__main__` runs as `python3 -m pip` does: the package whose main module it is."""
    return module.removesuffix(".__main__") or module
