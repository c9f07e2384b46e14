"""Variables a program reads that change what it runs, loads or writes are asked, however the
command sets them: before the program, through `env`, or exported first. The table
(dangerous_variables.py) is the one source: each case here names a program that reads it."""

from __future__ import annotations

import pytest

from tether.permissions import decide

from .conftest import ContextFactory

ALLOWED = ["vim", "make", "gdb", "less", "man", "git", "pytest", "env", "python3", "node"]
RULES = {
    "permissions": {
        "allow": [f"Bash({p} *)" for p in ALLOWED],
        "deny": ["Bash(curl *)", "Read(**/.env)", "Edit(.git/**)"],
    }
}

SET_FOR_A_PROGRAM = [
    "VIMINIT=':!curl -V' vim -c q",
    "EXINIT=':!curl -V' vim +q",
    "GVIMINIT=':!curl -V' vim -c q",
    "MYVIMRC=/tmp/x/vimrc vim -c q",
    "VIMRUNTIME=/tmp/x vim -c q",
    "VIMINIT=':!curl -V' git -c core.editor=vim commit",
    "GNUMAKEFLAGS='--eval=$(shell curl -V)' make",
    "GNUMAKEFLAGS=-I/tmp/x make",
    "SHELL=/tmp/x/sh gdb -batch -ex run --args /bin/true",
    "SHELL=/tmp/x/sh vim -c '!ls' -c q",
    "LESSOPEN='|curl -V %s' less README.md",
    "LESSKEYIN=/tmp/x/keys less README.md",
    "LESSKEY=/tmp/x/keys less README.md",
    "LESSEDIT='curl -V' less README.md",
    "LESSSECURE= less README.md",
    "LESSHISTFILE=.git/config less README.md",
    "LESS='+!curl -V' less README.md",
    "GDBHISTFILE=.git/config gdb -batch",
    "XDG_CONFIG_DIRS=/tmp/x git status",
    "XDG_CONFIG_HOME=/tmp/x git status",
    "PYTEST_PLUGINS=evil pytest",
    "PYTEST_ADDOPTS='-p evil' pytest",
    "MANOPT='-P curl' man ls",
    "MANPAGER='curl -V' man ls",
    "MANROFFOPT=-U man ls",
    "MAN_DISABLE_SECCOMP=1 man ls",
    "PAGER='curl -V' git log",
    "GIT_PAGER='curl -V' git log",
    "SYSTEMD_PAGER='curl -V' git log",
    "EDITOR='curl -V' git commit",
    "VISUAL='curl -V' git commit",
    "EXECIGNORE='*' git status",
    "NODE_REPL_EXTERNAL_MODULE=/tmp/x/m.js node",
    "ZDOTDIR=/tmp/x git status",
]


@pytest.mark.parametrize("command", SET_FOR_A_PROGRAM)
@pytest.mark.parametrize("form", ["{}", "env {}", "export {}; true"])
def test_a_variable_that_changes_what_a_program_runs_is_asked(
    command: str, form: str, make_ctx: ContextFactory
) -> None:
    if form == "export {}; true":
        assignment, _, program = command.partition(" ")
        while "'" in assignment and assignment.count("'") % 2:
            more, _, program = program.partition(" ")
            assignment += " " + more
        text = f"export {assignment}; {program}"
    else:
        text = form.format(command)
    assert decide("Bash", {"command": text}, make_ctx(RULES)).behavior != "allow", text


@pytest.mark.parametrize(
    "command",
    ["TERM=dumb git log", "LANG=C make", "TZ=UTC git log", "CI=1 pytest", "NO_COLOR=1 pytest"],
)
def test_variables_that_change_no_program_stay_allowed(
    command: str, make_ctx: ContextFactory
) -> None:
    assert decide("Bash", {"command": command}, make_ctx(RULES)).behavior == "allow"
