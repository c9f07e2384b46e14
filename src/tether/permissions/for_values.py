"""A `for` loop's variable read as the one word of its list: in `for f in *.py; do wc -l "$f";
done`, `$f` is each name `*.py` matches, so the body's `$f` is judged as the pattern `*.py`
(and `for f in .*` as `.*`, which may be `.env`). Only when nothing else can give the variable
another value: the list is one word known but for its globs (no substitution, no brace
expansion), and the command names the variable nowhere but in the loop's header and as `$f`
or `${f}` (no `f=`, `read f`, `${f:-x}`, nested loop or function that sets it), and sources or
evaluates no code that could. Otherwise `$f` stays unknown."""

from __future__ import annotations

import re

from tree_sitter import Node

from tether.permissions.shell_redirects import node_text
from tether.permissions.shell_words import DYN, Atom, word_atoms

_RUNS_UNSEEN_CODE = re.compile(r"(?:^|[\s;&|(){}`])(?:source|eval|\.)(?=[\s;&|()]|$)")
"""Words that run code which may set any variable (`source x`, `. x`, `eval ...`)."""


def loop_binding(node: Node, command: str) -> tuple[str, tuple[Atom, ...]] | None:
    """(variable, the atoms of its one list word) for a `for` statement whose variable stands
    for that word alone in `command`, the whole text read; None otherwise."""
    if node.children[0].type != "for":
        return None  # `select` reads the user's choice
    variable = node.child_by_field_name("variable")
    values = [child for child in node.children_by_field_name("value")]
    if variable is None or len(values) != 1:
        return None
    name = node_text(variable)
    atoms = word_atoms(values[0])
    if atoms is None or any(c == DYN for c, _ in atoms):
        return None
    if _RUNS_UNSEEN_CODE.search(command):
        return None
    word = re.escape(name)
    mentions = len(re.findall(rf"(?<![A-Za-z0-9_]){word}(?![A-Za-z0-9_])", command))
    expansions = len(re.findall(rf"\${word}(?![A-Za-z0-9_])|\$\{{{word}\}}", command))
    if mentions != expansions + 1:
        return None
    return name, atoms
