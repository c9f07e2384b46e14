"""Whether `$PWD` and `$(pwd)` in a Bash command say where the shell is: the Bash tool starts
bash with `PWD` set to the directory it runs in, and `cd`, `pushd`, `popd` keep it so, as
shell_places follows them for relative paths. Not when the command may give `PWD` a value of
its own (an assignment, `read`, `unset`, `declare`, a reference, a name not known), may
define a function (`pwd() { echo /etc; }`) or an alias, or runs code this text does not
hold in the shell itself (`eval`, `source`, `trap`, `enable`, a program not named)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from tether.permissions.script import Invocation
from tether.permissions.shell_variables import variables_set
from tether.permissions.shell_words import is_literal, program_name

_CHANGES_SHELL = frozenset({"eval", "source", ".", "trap", "enable", "alias", "shopt"})
"""Builtins that run or change code of the shell itself out of sight."""
_DECLARES = frozenset({"declare", "typeset", "local", "export", "readonly"})
_UNSTEADY_TEXT = re.compile(r"(?<!\$)(?<!\$\{)PWD|\(\s*\)|\bfunction\b")
"""`PWD` named other than in `$PWD` or `${PWD}` (`PWD=/etc`, `for PWD in`, `((PWD=1))`),
or a function definition (`pwd () {`, `function pwd {`)."""


def steady_pwd(command: str, invocations: Iterable[Invocation]) -> bool:
    """Whether `$PWD` and `$(pwd)` in `command`, whose `invocations` these are (nested ones
    too: bash_rules.all_invocations), stand for the directory the shell is in."""
    if _UNSTEADY_TEXT.search(command):
        return False
    for inv in invocations:
        names = [name for name, _ in inv.assignments] + variables_set(inv.argv)
        if any(not is_literal(name) or "PWD" in name for name in names):
            return False
        if any("PWD" in value for _, value in inv.assignments):
            return False  # `x=P''WD; declare -n r=$x`
        if not inv.argv:
            continue
        if not is_literal(inv.argv[0]) or program_name(inv.argv[0]) in _CHANGES_SHELL:
            return False
        if any("PWD" in word for word in inv.argv):
            return False
        options = "".join(w[1:] for w in inv.argv[1:] if w.startswith("-"))
        if program_name(inv.argv[0]) in _DECLARES and "n" in options:
            return False  # a reference whose target is set out of sight
    return True
