"""Code Python's linters, type checkers, test and task runners load besides the project's own,
run as programs (`pylint`, `mypy`, `tox`) or as modules (`python3 -m pylint`): configuration
files that are code or name code (`--rcfile` with an `init-hook`, mypy's and coverage's
plugins, a `tox.ini`'s commands, a `noxfile.py`, an `invoke` collection, a notebook run by
`nbconvert --execute`, a pre-commit repository's hooks), and code given on the line
(`pylint --init-hook=CODE`, `sphinx-build -D extensions=MOD`, `coverage run -m timeit -s
CODE`, a Jupyter application's class options).

`tool_loads` gives the paths whose code runs (outside_code: outside the workspace, code no rule
has seen, asked); `tool_code` the code given on the line (framework_code: judged as that code
is). An option name may be any prefix argparse or click accepts (`--rcf=`, option_names.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tether.permissions.entry_programs import entry_of
from tether.permissions.interpreter_code import CodeUse, code_use
from tether.permissions.option_names import long_option
from tether.permissions.server_options import SERVERS, server_code, server_loads
from tether.permissions.shell_words import DYN, is_literal

_LOADS: Mapping[str, tuple[str, ...]] = {
    "pylint": ("--rcfile", "--init-file"),
    "mypy": ("--config-file", "--python-executable"),
    "dmypy": ("--config-file",),
    "flake8": ("--config", "--append-config"),
    "coverage": ("--rcfile", "--data-file"),
    "tox": ("-c", "--conf", "--root", "--workdir"),
    "pre_commit": ("-c", "--config"),
    "pre-commit": ("-c", "--config"),
    "invoke": ("-c", "--collection", "-r", "--search-root", "-f", "--config"),
    "inv": ("-c", "--collection", "-r", "--search-root", "-f", "--config"),
    "sphinx-build": ("-c", "--conf-dir"),
    "sphinx": ("-c", "--conf-dir"),
    "jupyter": ("--config",),
    "bandit": ("-c", "--configfile"),
    "pyright": ("-p", "--project", "--pythonpath"),
    # Task runners and site builders: the task file, or the directory it is found in, is code
    # (a `dodo.py`, an `SConstruct`, a `Snakefile`, mkdocs' hooks, poe's pyproject); nox's
    # interpreter runs the sessions.
    "nox": ("-f", "--noxfile", "--nox-file", "--force-python", "-P", "--extra-python"),
    "doit": ("-f", "--file", "-d", "--dir"),
    **dict.fromkeys(("poe", "poethepoet"), ("-C", "--directory", "--root")),
    **dict.fromkeys(
        ("scons", "SCons"),
        (
            "-f",
            "--file",
            "--makefile",
            "--sconstruct",
            "-C",
            "--directory",
            "-I",
            "--site-dir",
            "--include-dir",
        ),
    ),
    "snakemake": ("-s", "--snakefile", "-d", "--directory", "--profile", "--workflow-profile"),
    "mkdocs": ("-f", "--config-file"),
    "prospector": ("--profile-path", "--profile"),
    "alembic": ("-c", "--config"),
    # Frameworks: a directory their application is imported from (`manage.py --pythonpath /x
    # --settings mod`); app servers and task queues are server_options.py's.
    **dict.fromkeys(("manage.py", "django-admin", "django-admin.py", "django"), ("--pythonpath",)),
}
"""Options whose value is a file or directory the tool runs code from (or a configuration that
names such code, or the interpreter it runs), by the tool's program or module name."""
_POSITIONAL_CODE: Mapping[str, tuple[str, ...]] = {
    "behave": (),
    "jupyter-execute": (),
    "papermill": (),
    "streamlit": (),
    "scrapy": (),
}
"""Tools whose positionals are code they run (behave's feature directories hold step code,
papermill's input notebook, `streamlit run FILE`, `scrapy runspider FILE`; their other words
are names, read as paths in the workspace)."""
_TOOLS = frozenset(
    {*_LOADS, *_POSITIONAL_CODE, "jupyter", "coverage", "pylint", "sphinx-build", "sphinx"}
)
_VALUED: frozenset[str] = frozenset(
    {"-c", "-f", "-r", "-o", "--output", "-D", "--define", "-k", "-t", "--tags", "-i", "--name"}
)
_TRAITLET = re.compile(r"--[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*")
_HARMLESS_TRAITS = frozenset(
    {"timeout", "kernel_name", "allow_errors", "log_level", "startup_timeout"}
)
"""Jupyter class options that only tune a run (`--ExecutePreprocessor.timeout=600`); any other
may name a class or hook to import, or code to run: not seen."""


def tool_loads(
    argv: tuple[str, ...], assignments: tuple[tuple[str, str], ...] = ()
) -> tuple[str, ...]:
    """Paths `argv`'s Python tool runs code from, besides the workspace's own discovery (and
    an app server's configuration: server_options.py)."""
    entry = entry_of(argv)
    if entry is None:
        return ()
    name, args = entry
    if name in SERVERS:
        return server_loads(name, args, assignments)
    if name not in _TOOLS:
        return ()
    found = [value for _, value in _pairs(args, _LOADS.get(name, ()))]
    if name in _POSITIONAL_CODE:
        # A URL is code fetched as it runs (`streamlit run https://...`): not known now.
        found += [DYN if "://" in p else p for p in _positionals(args)]
    if name in ("pre_commit", "pre-commit") and _first(args) == "try-repo":
        repo = _positionals(args)[1:2]
        found += [DYN if "://" in r or r.startswith("git@") else r for r in repo]
    if name == "jupyter":
        found += _jupyter_runs(args)
    if name == "coverage" and _first(args) == "run":
        scripts = _positionals(args)[1:2]
        if "-m" not in args and "--module" not in args:
            found += scripts
    return tuple(found)


def tool_code(argv: tuple[str, ...]) -> CodeUse | None:
    """Code given on `argv`'s line to a Python tool, or its class options naming code."""
    entry = entry_of(argv)
    if entry is None:
        return None
    name, args = entry
    if name in SERVERS:
        return server_code(name, args)
    if name not in _TOOLS:
        return None
    if name == "pylint":
        hooks = [value for _, value in _pairs(args, ("--init-hook",))]
        return CodeUse("-c", hooks[0], language="python") if hooks else None
    if name in ("sphinx-build", "sphinx"):
        for _, value in _pairs(args, ("-D", "--define")):
            if value.partition("=")[0].strip() in ("extensions", "") or not is_literal(value):
                return CodeUse("-c", None, only_input=False, source=f"sphinx's -D {value}")
        return None
    if name == "coverage" and _first(args) == "run":
        return _coverage_module(args)
    if name == "jupyter":
        for arg in args:
            trait = _TRAITLET.match(arg)
            if trait and trait.group().rpartition(".")[2] not in _HARMLESS_TRAITS:
                return CodeUse("-c", None, only_input=False, source=f"jupyter's {trait.group()}")
    return None


def _coverage_module(args: tuple[str, ...]) -> CodeUse | None:
    """`coverage run [OPTIONS] -m MODULE ARGS` runs MODULE as `python3 -m` would."""
    for i, arg in enumerate(args):
        if arg in ("-m", "--module") and i + 1 < len(args):
            return code_use(("python3", "-m", *args[i + 1 :]))
    return None


def _jupyter_runs(args: tuple[str, ...]) -> list[str]:
    """Notebooks and scripts a Jupyter command runs: `nbconvert --execute`, `execute`, `run`."""
    command = _first(args)
    if command == "nbconvert" and ("--execute" in args or "--to=notebook" in args):
        return _positionals(args)[1:]
    if command in ("execute", "run"):
        return _positionals(args)[1:]
    return []


def _first(args: tuple[str, ...]) -> str:
    positionals = _positionals(args)
    return positionals[0] if positionals else ""


def _positionals(args: tuple[str, ...]) -> list[str]:
    found: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return found + list(args[i + 1 :])
        if arg.startswith("-") and arg != "-":
            i += 2 if arg in _VALUED else 1
            continue
        found.append(arg)
        i += 1
    return found


def _pairs(args: tuple[str, ...], options: tuple[str, ...]) -> list[tuple[str, str]]:
    """(option, value) for each of `options`: `-c X`, `-cX`, `--opt X`, `--opt=X`, and any
    prefix of a long option (argparse and click take one), until `--`."""
    if not options:
        return []
    found: list[tuple[str, str]] = []
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg.startswith("--"):
            given = long_option(arg, [o for o in options if o.startswith("--")])
            if given is not None:
                value = given[1] if given[1] is not None else _next(args, i)
                found.append((given[0], value))
            continue
        for option in options:
            if option.startswith("--") or not arg.startswith(option):
                continue
            found.append((option, arg[len(option) :].removeprefix("=") or _next(args, i)))
    return found


def _next(args: tuple[str, ...], i: int) -> str:
    return args[i + 1] if i + 1 < len(args) else DYN
