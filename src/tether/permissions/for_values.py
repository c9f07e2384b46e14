"""A `for` loop's variable read as the one word of its list: in `for f in *.py; do wc -l "$f";
done`, `$f` is each name `*.py` matches, so the body's `$f` is judged as the pattern `*.py`
(and `for f in .*` as `.*`, which may be `.env`). Only when nothing else can give the variable
another value: the list is one word known but for its globs (no substitution, no brace
expansion), and the command names the variable nowhere but in the loop's header and as `$f`
or `${f}` (no `f=`, `read f`, `${f:-x}`, nested loop or function that sets it), and sources or
evaluates no code that could. Otherwise `$f` stays unknown."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from tree_sitter import Node

from tether.permissions import shell_budget
from tether.permissions.shell_redirects import node_text
from tether.permissions.shell_words import DYN, word_atoms
from tether.permissions.word_patterns import Atom

_RUNS_UNSEEN_CODE = re.compile(r"(?:^|[\s;&|(){}`])(?:source|eval|\.)(?=[\s;&|()]|$)")
"""Words that run code which may set any variable (`source x`, `. x`, `eval ...`)."""
_NAME = re.compile(r"(\$\{?)?([A-Za-z_][A-Za-z0-9_]*)(\})?")


@dataclass(frozen=True)
class CommandNames:
    """What a command's text says of its variables, read once for all its loops."""

    mentions: Counter[str]
    """Each name, however it stands (`f=`, `read f`, `$f`, `${f:-x}`, a word `f`)."""
    expansions: Counter[str]
    """Each name as a plain `$f` or `${f}`."""
    runs_unseen: bool

    @staticmethod
    def of(command: str) -> CommandNames:
        shell_budget.scan(command)
        mentions: Counter[str] = Counter()
        expansions: Counter[str] = Counter()
        for found in _NAME.finditer(command):
            dollar, name, close = found.groups()
            mentions[name] += 1
            if dollar == "$" or (dollar == "${" and close):
                expansions[name] += 1
        return CommandNames(mentions, expansions, _RUNS_UNSEEN_CODE.search(command) is not None)


def loop_binding(node: Node, names: CommandNames) -> tuple[str, tuple[Atom, ...]] | None:
    """(variable, the atoms of its one list word) for a `for` statement whose variable stands
    for that word alone in the command `names` was read from; None otherwise."""
    if node.children[0].type != "for" or names.runs_unseen:
        return None  # `select` reads the user's choice
    variable = node.child_by_field_name("variable")
    values = node.children_by_field_name("value")
    if variable is None or len(values) != 1:
        return None
    name = node_text(variable)
    if names.mentions[name] != names.expansions[name] + 1:
        return None
    atoms = word_atoms(values[0])
    if atoms is None or any(c == DYN for c, _ in atoms):
        return None
    return name, atoms
