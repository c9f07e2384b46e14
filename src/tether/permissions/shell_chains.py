"""Commands that run only when the one before them succeeded, in the same shell: in `cd src
&& make -C ..` make runs in src, never where the line started, so its `..` is the workspace.
The walk marks such a command (`Invocation.chained`); shell_places then judges its relative
paths from where the `cd` before it led alone, instead of every place the line may be in."""

from __future__ import annotations

import re

from tree_sitter import Node

_SUBSTITUTIONS = ("$(", "`", "<(", ">(")
"""Text that runs commands of its own inside a word: a line holding one is not a single
command, so the one before the `&&` may not be the last thing run."""


def runs_after_success(node: Node) -> bool:
    """Whether `node`, a `list`, is `LEFT && RIGHT` where LEFT ends with a simple command of
    this shell holding no substitution (`cd src && ...`, `a || b && cd src && ...`): what
    RIGHT runs first runs only once that command has succeeded. Not after `||` (`a || cd src
    && make`: make also runs when `cd` never did), a subshell, a pipeline or a negation,
    whose `cd` does not move this shell or may not have run."""
    if node.type != "list" or node.child_count != 3 or node.children[1].type != "&&":
        return False
    left = node.children[0]
    if left.type == "list":
        if left.child_count != 3 or left.children[1].type != "&&":
            return False
        left = left.children[2]
    text = (left.text or b"").decode("utf-8", "surrogateescape")
    return left.type == "command" and not any(s in text for s in _SUBSTITUTIONS)


def cd_goes_where_named(command: str) -> bool:
    """Whether every `cd` of `command` goes to the directory it names when it succeeds: not
    where the line may turn on `cdable_vars` (`shopt -s cdable_vars; cd x`: the directory in
    `$x` when there is no `x`), which it can only do with `shopt` (CDPATH: shell_places)."""
    return "shopt" not in command and "cdable" not in command


_PHYSICAL = re.compile(r"\bset\b|physical|SHELLOPTS")


def cd_stays_logical(command: str) -> bool:
    """Whether every `cd` of `command` without `-P` is logical: bash starts so, and only
    `set -P`/`set -o physical` (or SHELLOPTS, for a shell it starts) change it."""
    return _PHYSICAL.search(command) is None


_BESIDE = re.compile(r"(?<![&>|])&(?![&>])")
"""A lone `&` (not `&&`, `>&`, `&>`, `|&`): what it ends runs beside what follows."""


def runs_alone(command: str) -> bool:
    """Whether no command of `command` may run beside another (no `&` ends one), so each
    finds the disk as the commands before it left it (as written: a quoted `&` counts)."""
    return _BESIDE.search(command) is None
