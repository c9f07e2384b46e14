"""Code a framework's command line runs that is no file of the user's: the entry program
(`manage.py`, `flask`, `rails`, `rake`, `ipython`, `artisan`...) is allowed as a program, but
some of its commands run code given on the command line (`manage.py shell -c CODE`, `rails
runner CODE`, `rake -e CODE`, `artisan tinker --execute=CODE`, `wp eval CODE`) or read it from
their input (`manage.py shell <<< CODE`, `flask shell`, `rails console`, `jupyter console`,
a database client's prompt). Judged as that code is (inline_verdicts.py), whichever rule allows
the entry program: `python3 manage.py shell -c CODE` as `python3 -c CODE`.

One table, by the entry's name (a script's base name, a program's, or a `-m` module's), of
functions from the entry's arguments to the code they run. An entry found through an
interpreter (`python3 manage.py`, `ruby bin/rails`, `php artisan`) or on its own
(`./manage.py`, `django-admin`, `bin/rails`, `python3 -m django`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from tether.permissions.entry_programs import entry_of
from tether.permissions.interpreter_code import CodeUse
from tether.permissions.option_names import long_option
from tether.permissions.python_tool_code import tool_code
from tether.permissions.shell_words import DYN, is_literal


def framework_code(argv: tuple[str, ...]) -> CodeUse | None:
    """What code `argv` runs through a framework's command that takes it on its command line
    or from its input; None when no entry of the table is run, or its command runs only the
    project's files."""
    entry = entry_of(argv)
    if entry is None:
        return None
    name, args = entry
    judge = _ENTRIES.get(name)
    found = judge(args) if judge is not None else None
    return found or tool_code(argv)


def _subcommand(args: tuple[str, ...], valued: frozenset[str] = frozenset()) -> tuple[str, int]:
    """The first word that is no option (skipping `valued` options' values), and its index;
    `("", len)` when there is none."""
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("-"):
            return arg, i
        i += 2 if arg in valued else 1
    return "", len(args)


def _value(args: tuple[str, ...], options: tuple[str, ...]) -> str | None:
    """The value of the first of `options` given (`-c CODE`, `--command=CODE`, `-cCODE`, and
    any prefix of a long option, as argparse and Ruby's OptionParser take: `--comm=CODE`)."""
    longs = [option for option in options if option.startswith("--")]
    for i, arg in enumerate(args):
        if arg == "--":
            return None
        given = long_option(arg, longs) if arg.startswith("--") else None
        if given is not None:
            return given[1] if given[1] is not None else _next(args, i)
        for option in options:
            if option.startswith("--"):
                continue
            if arg == option:
                return _next(args, i)
            if arg.startswith(option):
                return arg[2:]
    return None


def _next(args: tuple[str, ...], i: int) -> str:
    return args[i + 1] if i + 1 < len(args) else DYN


def _abbreviates(command: str, names: tuple[str, ...]) -> bool:
    """Whether `command` names one of `names` as Symfony's console finds commands: each
    `:`-separated part a prefix of the name's (`tin` for `tinker`, `p:ev` for `php:eval`)."""
    parts = command.split(":")
    for name in names:
        full = name.split(":")
        if len(parts) == len(full) and all(
            part and whole.startswith(part) for part, whole in zip(parts, full, strict=True)
        ):
            return True
    return False


def _unknown(args: tuple[str, ...], what: str) -> CodeUse:
    return CodeUse("-c", None, only_input=False, source=what)


def _django(args: tuple[str, ...]) -> CodeUse | None:
    """`manage.py|django-admin COMMAND`: `shell`/`shell_plus` run `-c CODE`, or else their
    input; `dbshell` gives its input (and what follows `--`) to the database's client, whose
    prompt runs programs (`\\!`); `shell_plus --notebook|--lab` serves a code prompt."""
    command, at = _subcommand(args, frozenset({"--settings", "--pythonpath"}))
    rest = args[at + 1 :]
    if not is_literal(command):
        return _unknown(args, "a command of manage.py named as it runs")
    if command in ("shell", "shell_plus"):
        code = _value(rest, ("-c", "--command"))
        if code is not None:
            return CodeUse("-c", code, language="python")
        if {"--notebook", "--lab", "--kernel"} & set(rest):
            return _unknown(args, f"manage.py {command}'s notebook")
        return CodeUse("-c", None)
    if command == "dbshell":
        if "--" in rest:
            return _unknown(args, "the database client's arguments after --")
        return CodeUse("-c", None)
    return None


def _flask(args: tuple[str, ...]) -> CodeUse | None:
    """`flask [--app X] shell`: a Python prompt reading its input."""
    command, _ = _subcommand(args, frozenset({"--app", "-A", "--env-file", "-e"}))
    if not is_literal(command):
        return _unknown(args, "a command of flask named as it runs")
    return CodeUse("-c", None) if command == "shell" else None


def _rails(args: tuple[str, ...]) -> CodeUse | None:
    """`rails runner CODE|FILE` (a word naming no `.rb` file is Ruby code), `rails console`
    and `dbconsole` read their input."""
    command, at = _subcommand(args)
    rest = args[at + 1 :]
    if not is_literal(command):
        return _unknown(args, "a command of rails named as it runs")
    if command in ("runner", "r"):
        code, _ = _subcommand(rest, frozenset({"-e", "--environment"}))
        if not code or code.endswith(".rb"):
            return None
        return CodeUse("-e", code, language="ruby")
    if command in ("console", "c", "dbconsole", "db"):
        return CodeUse("-e", None)
    return None


def _rake(args: tuple[str, ...]) -> CodeUse | None:
    """`rake -e|-p|-E CODE`: Ruby code run before the tasks."""
    code = _value(args, ("-e", "--execute", "-p", "--execute-print", "-E", "--execute-continue"))
    return None if code is None else CodeUse("-e", code, language="ruby")


def _ipython(args: tuple[str, ...]) -> CodeUse | None:
    """`ipython -c CODE`, options that set configuration (`--InteractiveShellApp.exec_lines=`,
    `--ext`, a profile or config elsewhere: code), `-m MODULE`, or no script: its input."""
    code = _value(args, ("-c",))
    if code is not None:
        return CodeUse("-c", code, language="python")
    for arg in args:
        option = arg.partition("=")[0]
        if ("." in option.lstrip("-") and option.startswith("--")) or option in _IPYTHON_CONFIG:
            return _unknown(args, f"ipython's {option} (configuration is code)")
    script, _ = _subcommand(args)
    return CodeUse("-c", None) if not script or script.startswith("-") else None


_IPYTHON_CONFIG = frozenset(
    {"--ext", "--profile-dir", "--ipython-dir", "--config", "--profile", "-m", "--logappend"}
)


def _jupyter(args: tuple[str, ...]) -> CodeUse | None:
    """`jupyter console`: a kernel's prompt reading its input."""
    command, at = _subcommand(args)
    if command == "console":
        return _ipython(args[at + 1 :]) or CodeUse("-c", None)
    return None


def _artisan(args: tuple[str, ...]) -> CodeUse | None:
    """Laravel's `artisan tinker [--execute=CODE]`: PHP code, or its input."""
    command, at = _subcommand(args)
    if not is_literal(command):
        return _unknown(args, "a command of artisan named as it runs")
    if not _abbreviates(command, ("tinker",)):
        return None
    code = _value(args[at + 1 :], ("--execute",))
    return CodeUse("-r", None) if code is None else CodeUse("-r", code, language="php")


def _php_eval(evals: tuple[str, ...], prompts: tuple[str, ...]) -> Judge:
    """Drush's and WP-CLI's `eval CODE` (PHP) and their PHP prompts."""

    def judge(args: tuple[str, ...]) -> CodeUse | None:
        command, at = _subcommand(args)
        if not is_literal(command):
            return _unknown(args, "a command named as it runs")
        if command in evals or _abbreviates(command, evals):
            code, _ = _subcommand(args[at + 1 :])
            return CodeUse("-r", code or DYN, language="php")
        prompt = command in prompts or _abbreviates(command, prompts)
        return CodeUse("-r", None) if prompt else None

    return judge


def _mix(args: tuple[str, ...]) -> CodeUse | None:
    """`mix run -e|--eval CODE`: Elixir code."""
    command, at = _subcommand(args)
    if command != "run":
        return None
    code = _value(args[at + 1 :], ("-e", "--eval"))
    return None if code is None else CodeUse("-e", code, language="elixir")


def _scrapy(args: tuple[str, ...]) -> CodeUse | None:
    """`scrapy shell [URL] [-c CODE]`: Python code, or a prompt."""
    command, at = _subcommand(args)
    if command != "shell":
        return None
    code = _value(args[at + 1 :], ("-c",))
    return CodeUse("-c", None) if code is None else CodeUse("-c", code, language="python")


Judge = Callable[[tuple[str, ...]], CodeUse | None]
_ENTRIES: Mapping[str, Judge] = {
    **dict.fromkeys(("manage.py", "django-admin", "django-admin.py", "django"), _django),
    "flask": _flask,
    "rails": _rails,
    **dict.fromkeys(("rake", "rake.rb"), _rake),
    **dict.fromkeys(("ipython", "ipython3", "IPython"), _ipython),
    "jupyter": _jupyter,
    "jupyter-console": lambda args: _ipython(args) or CodeUse("-c", None),
    "artisan": _artisan,
    "drush": _php_eval(("php:eval", "php-eval", "eval", "ev"), ("php:cli", "php", "core:cli")),
    "wp": _php_eval(("eval",), ("shell",)),
    "mix": _mix,
    "scrapy": _scrapy,
}
"""Entry programs whose commands run code from their arguments or input, by name."""

ENTRY_SCRIPTS = frozenset(
    {*_ENTRIES, "console", "yii", "spark", "craft", "bin/console", "setup.py", "mach", "waf"}
)
"""Scripts an interpreter runs that dispatch to commands, some of which run code given to
them (the table's, and PHP frameworks' consoles: Symfony's `bin/console`, Yii's `yii`,
CodeIgniter's `spark`, Craft's `craft`; setuptools' `setup.py`, whose commands write
configuration and installs anywhere (`install --prefix`, `setopt -g`) or load command packages,
and the build dispatchers `mach`, `waf`): "always allow" saves the exact command for them,
never `python3 manage.py *` (suggest.py)."""
