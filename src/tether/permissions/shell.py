"""A Bash command line, parsed with tree-sitter-bash into the simple commands that would run.

Every simple command counts, wherever it sits: in lists and pipelines, subshells, `$()`,
backticks (re-read as bash re-reads them, so escaped backticks nest), `<()`, `if`/`for`/
`while`/`case` bodies, function bodies, heredoc substitutions, and inside the code strings of
`bash -c`, `eval`, `find -exec`... (see wrappers.py). What cannot be understood is recorded as a
problem (the policy then treats the command as one that may run anything): a parse error, text
bash expands where the tree shows only a word (shell_hidden.py), a control character, nesting
deeper than `MAX_DEPTH`.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from tether.permissions import shell_budget
from tether.permissions.script import Script
from tether.permissions.shell_budget import MAX_BYTES, TOO_LARGE, TooLarge
from tether.permissions.shell_heredocs import outside_bodies, repaired
from tether.permissions.shell_hidden import control_character, joins_words
from tether.permissions.shell_tree import parse_tree
from tether.permissions.shell_variables import fd_variables
from tether.permissions.shell_walker import PARSE_ERROR, TOO_DEEP, Walker
from tether.permissions.shell_words import unbound
from tether.permissions.wrappers import MAX_DEPTH

UNREADABLE = "a character after `{` that the bash parser cannot read safely"
_SCANNER_READS_OUT_OF_BOUNDS = re.compile(rb"\{[0-9]*(?:\.\.[0-9]*)?[\xc4-\xf4]")
"""Text tree-sitter-bash's scanner (0.25) must not be given: after `{` (then digits, `..`,
digits: a brace range) it asks C's `isdigit` about the next character, and that table has an
entry for each byte only. A character past U+00FF (its UTF-8 lead byte C4 to F4) reads
beyond it: garbage, or a segmentation fault where nothing is mapped there, which ends the
whole process (tree-sitter-bash issue 337; fixed by `iswdigit` in no release yet). Such a
command is not parsed: it is one the engine cannot see, as an unparseable one is."""


@lru_cache(maxsize=2048)
def parse_command(command: str, depth: int = 0) -> Script:
    """The invocations `command` would run, in source order, and what could not be understood.
    `depth` is how deeply this code is nested (tree levels, wrappers, code strings): past
    `MAX_DEPTH`, nothing more is read and the command is too deeply nested to judge. The
    result says how many steps reading it took (`Script.steps`)."""
    if depth > MAX_DEPTH:
        return Script((), (TOO_DEEP,))
    budget = shell_budget.current()
    if budget is not None:
        before = budget.steps
        script = _read(command, depth)
        return replace(script, steps=budget.steps - before)
    if len(command) > MAX_BYTES:
        return Script((), (TOO_LARGE,))
    budget = shell_budget.begin()
    try:
        return replace(_read(command, depth), steps=budget.steps)
    except TooLarge:
        return Script((), (TOO_LARGE,), budget.steps)
    finally:
        shell_budget.end()


def _read_nested(command: str, depth: int) -> Script:
    """A code string met while reading a command (`bash -c`, backticks, heredocs): its steps
    count against the command's read even when the parse cache already holds it."""
    budget = shell_budget.current()
    before = None if budget is None else budget.steps
    script = parse_command(command, depth)
    if budget is not None and budget.steps == before:
        budget.spend(script.steps)
    return script


def _read(command: str, depth: int) -> Script:
    budget = shell_budget.current()
    if budget is not None:
        budget.text(len(command))
    shell_budget.scan(command)  # the scans of the whole text below, at least one step
    problems: list[str] = []
    control = control_character(command)
    if control is not None:
        problems.append(f"a control character ({control}) that bash may read differently")
    try:
        source = command.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        source = command.encode("utf-8", "surrogatepass")
        problems.append("text that is not valid Unicode")
    if _SCANNER_READS_OUT_OF_BOUNDS.search(source):
        return Script((), tuple(dict.fromkeys([UNREADABLE, *problems])))
    tree = parse_tree(source)
    if tree is None:
        return Script((), tuple(dict.fromkeys([PARSE_ERROR, *problems])))
    walker = Walker(depth, _read_nested, budget)
    repair = repaired(source, tree)
    if repair is not None:  # heredoc bodies read as bash reads them (shell_heredocs.py)
        tree, walker.bodies = repair.tree, repair.bodies
        if repair.problem is not None:
            problems.append(repair.problem)
    with unbound():  # a loop's variable outside this text is not known here (for_values.py)
        walker.visit(tree.root_node)
    walker.sets(fd_variables(command))
    if tree.root_node.has_error:
        problems.insert(0, PARSE_ERROR)
    if joins_words(outside_bodies(source, tree)):
        problems.append("a line continuation inside a word")
    problems.extend(walker.problems)
    if walker.tainted or (walker.functions and walker.dynamic_arguments) or depth > 0:
        # Code read again (bash -c, eval, backticks) may see variables set outside it.
        problems.extend(walker.conditional)
    return Script(tuple(walker.invocations), tuple(dict.fromkeys(problems)))
