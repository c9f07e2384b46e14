"""What make's command line changes of what its recipes run, beyond the makefile tether
reads: a command-line variable that chooses the shell or the makefiles (`SHELL=`,
`MAKEFLAGS=`, `MAKEFILES=`), one that runs a command (`X != CMD`), one whose name is known
only as it runs, and one make puts in every recipe's environment (GNU make exports the
command line's variables) that changes what programs run or load (`LD_PRELOAD=x`, `CC=...`,
`PYTHONPATH=...`: dangerous_variables, the table a shell assignment before a command is
judged by); the same variables set by `--eval` text; and `-e`, with which the environment,
not seen, overrides the makefile's variables. Each is code not seen. make's own program
variables (`CC=clang`, `CXX='clang++ -std=c++20'`) are read where its recipes use them
(makefile_reader, outside_code), so one naming a plain program stays judged there; one
that starts a shell, an interpreter or a wrapper (`CC='sh -c ...'`, `CC='env X=1 cc'`) runs,
in every child that reads it from the environment, what is not seen."""

from __future__ import annotations

import re

from tether.permissions.dangerous_variables import is_dangerous_variable
from tether.permissions.interpreter_scripts import INTERPRETERS
from tether.permissions.make_eval import eval_text
from tether.permissions.make_options import overrides_environment
from tether.permissions.makefile_run import MAKE_DEFAULTS
from tether.permissions.shell_words import is_literal, program_name
from tether.permissions.shells import SHELLS
from tether.permissions.wrapper_table import WRAPPERS

_ASSIGNMENT = re.compile(r"\s*([^\s=:+?!#]+)\s*(::?:?=|\+=|\?=|!=|=)(.*)", re.S)
"""A command-line word make reads as a variable (its name holds no blank, `:`, `#`, `=`)."""
CODE_VARIABLES = frozenset(
    {
        "SHELL",
        "MAKESHELL",
        ".SHELLFLAGS",
        "MAKEFILES",
        "MAKEFLAGS",
        "MFLAGS",
        "MAKE",
        "GNUMAKEFLAGS",
        ".RECIPEPREFIX",
    }
)
"""make variables that choose what runs every recipe or which makefiles are read first
(`.RECIPEPREFIX` turns the makefile's other lines into recipes)."""


def command_line_unseen(args: tuple[str, ...]) -> str | None:
    """What of make's words `args` changes what its recipes run unseen (the module's
    docstring), as the source to name; None when nothing does."""
    for arg in args:
        found = _ASSIGNMENT.match(arg)
        if found is None or arg.startswith("-"):
            continue
        name, op, value = found.groups()
        if op == "!=" or not is_literal(name) or name in CODE_VARIABLES:
            return f"make's {name}{op}"
        if _changes_recipes(name, value):
            return f"make's {name}{op}, in every recipe's environment"
    for name, value in eval_text(args).assignments:
        if _changes_recipes(name, value):
            return f"make's --eval setting {name}"
    if overrides_environment(args):
        return "make's -e (the environment's variables override the makefile's)"
    return None


def _changes_recipes(name: str, value: str) -> bool:
    if name in CODE_VARIABLES:
        return True
    return is_dangerous_variable(name) and not (name in MAKE_DEFAULTS and _plain_program(value))


def _plain_program(value: str) -> bool:
    """Whether `value` is a program and its options, the program no shell, interpreter or
    wrapper (under a versioned name too: `python3.12`, `bash5`)."""
    words = value.split()
    if not words or "$" in value or not all(is_literal(w) for w in words):
        return False
    name = program_name(words[0])
    bare = name.rstrip("0123456789.-") or name
    starters = (SHELLS, INTERPRETERS, WRAPPERS)
    return not any(n in table for n in (name, bare) for table in starters)
