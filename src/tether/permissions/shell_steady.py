"""What stays as bash starts it through a Bash command. `$PWD` and `$(pwd)`: the Bash tool
starts bash with `PWD` set to the directory it runs in, and `cd`, `pushd`, `popd` keep it so,
as shell_places follows them for relative paths; not when the command may give `PWD` a value
of its own (an assignment, `read`, `unset`, `declare`, a reference, a name not known). And
the builtins: `read` is bash's own, not a function or an alias of that name or a program
(`enable -n`). Neither holds when the command may define a function (`pwd() { echo /etc; }`)
or an alias, or runs code this text does not hold in the shell itself (`eval`, `source`,
`trap`, `enable`, a program not named)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from tether.permissions.script import Invocation
from tether.permissions.shell_variables import variables_set
from tether.permissions.shell_words import is_literal, program_name

_CHANGES_SHELL = frozenset({"eval", "source", ".", "trap", "enable", "alias", "shopt"})
"""Builtins that run or change code of the shell itself out of sight."""
_DECLARES = frozenset({"declare", "typeset", "local", "export", "readonly"})
_DEFINES_FUNCTION = re.compile(r"\(\s*\)|\bfunction\b")
"""A function definition (`pwd () {`, `function pwd {`), or text that may be one."""
_NAMES_PWD = re.compile(r"(?<!\$)(?<!\$\{)PWD")
"""`PWD` named other than in `$PWD` or `${PWD}` (`PWD=/etc`, `for PWD in`, `((PWD=1))`)."""


def builtins_stay(command: str, invocations: Iterable[Invocation]) -> bool:
    """Whether a builtin's name in `command`, whose `invocations` these are (nested ones too:
    bash_rules.all_invocations), runs bash's builtin."""
    if _DEFINES_FUNCTION.search(command):
        return False
    for inv in invocations:
        if inv.argv and (
            not is_literal(inv.argv[0]) or program_name(inv.argv[0]) in _CHANGES_SHELL
        ):
            return False
    return True


def steady_pwd(command: str, invocations: Iterable[Invocation]) -> bool:
    """Whether `$PWD` and `$(pwd)` in `command` stand for the directory the shell is in."""
    invocations = tuple(invocations)
    if _NAMES_PWD.search(command) or not builtins_stay(command, invocations):
        return False
    for inv in invocations:
        names = [name for name, _ in inv.assignments] + variables_set(inv.argv)
        if any(not is_literal(name) or "PWD" in name for name in names):
            return False
        if any("PWD" in value for _, value in inv.assignments):
            return False  # `x=P''WD; declare -n r=$x`
        if any("PWD" in word for word in inv.argv):
            return False
        options = "".join(w[1:] for w in inv.argv[1:] if w.startswith("-"))
        if inv.argv and program_name(inv.argv[0]) in _DECLARES and "n" in options:
            return False  # a reference whose target is set out of sight
    return True


_PROGRAMLESS = frozenset({"read", "printf", "echo", "test", "[", "true", "false"})
"""Builtins that start no program and look none up: a variable given to one alone changes
what programs run for none (not special builtins, whose assignments may outlive them)."""
_SHELL_READS = re.compile(r"PS4|SHELLOPTS|BASHOPTS|BASH_.*|GLOBIGNORE|EXECIGNORE|INPUTRC|TMPDIR")
"""Variables bash itself reads while it runs a builtin: the trace prompt it expands (`set -x`),
its options, the hash table, `read -e`'s readline, where a here-string's file goes."""


def for_builtin_alone(inv: Invocation, name: str) -> bool:
    """Whether the assignment of `name` before `inv` (`IFS=, read -r a b`) is seen by a
    builtin alone that starts no program (when builtins_stay holds)."""
    if inv.persistent or inv.role != "command" or inv.inner or not inv.argv:
        return False
    program = inv.argv[0]
    if program not in _PROGRAMLESS or _SHELL_READS.fullmatch(name.split("[", 1)[0]):
        return False
    return program != "read" or not any(
        w.startswith("-") and not w.startswith("--") and "e" in w for w in inv.argv[1:]
    )
