"""Constructs that evaluate a variable's text as code: arithmetic, array subscripts in names,
`${x@P}`, `[[ a -eq b ]]`, `let`, `declare -i`.

`x='a[$(cmd)]'; echo $((x))` runs `cmd`: arithmetic evaluates the variable's value, and an
array subscript in it runs substitutions. That can only happen when some variable may hold such
text, so these checks report *conditional* problems; the walker keeps them only when the command
also gives a variable a value that is not a plain literal (`tainted`).
"""

from __future__ import annotations

from tree_sitter import Node

from tether.permissions import shell_budget
from tether.permissions.commands import SUBSCRIPT_NAME_BUILTINS
from tether.permissions.shell_variables import arithmetic_assigns
from tether.permissions.shell_words import is_literal, program_name, word_of

_ARITHMETIC_OPERATORS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_VARIABLE_NODES = frozenset({"variable_name", "simple_expansion", "expansion", "word"})

TAINTING_BUILTINS = frozenset(
    {"read", "mapfile", "readarray", "getopts", "source", ".", "eval", "trap", "alias"}
)
"""Builtins that give variables values the parser does not see (read from input, from a file,
from code run later)."""


def holds_code(word: str) -> bool:
    """A literal whose text, evaluated as arithmetic or as a name with a subscript, expands
    something: `'a[$(cmd)]'` runs cmd there, `'PATH=0'` assigns PATH. Quotes do not help,
    since bash evaluates the text after quote removal."""
    return is_literal(word) and ("$" in word or "`" in word or bool(arithmetic_assigns(word)))


def name_problems(argv: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """`read 'a[$(cmd)]'`, `printf -v 'a[$i]'`: bash evaluates array subscripts in variable
    names. Returns the conditional problems (a subscript evaluating variables) and the sure
    ones (a subscript whose own text holds a substitution)."""
    if not argv or not is_literal(argv[0]):
        return [], []
    name = program_name(argv[0])
    if name == "let":
        problem = "let evaluates arithmetic, which can run commands"
        if any(holds_code(a) or not is_literal(a) for a in argv[1:]):
            return [], [problem]
        return [problem], []
    if name not in SUBSCRIPT_NAME_BUILTINS:
        return [], []
    args = argv[1:]
    if name in ("printf", "test", "["):
        # Only the word after -v names a variable there.
        names = [
            a[2:] if len(a) > 2 else args[i + 1]
            for i, a in enumerate(args)
            if a.startswith("-v") and (len(a) > 2 or i + 1 < len(args))
        ]
    else:
        names = [a for a in args if not a.startswith("-")]
    problem = f"{name} with an array subscript can run commands"
    if any("[" in n and holds_code(n) for n in names):
        return [], [problem]
    if any("[" in n or not is_literal(n) for n in names):
        return [problem], []
    return [], []


def taints(argv: tuple[str, ...]) -> bool:
    """Whether a simple command may give some variable a value holding code: a builtin that
    assigns what the parser cannot see, or a word whose text holds `$` or a backtick (a
    function's `$1`, `declare`'s arguments)."""
    if any("$" in w or "`" in w or holds_code(w) for w in argv):
        return True
    if not argv or not is_literal(argv[0]):
        return bool(argv)
    name = program_name(argv[0])
    if name in TAINTING_BUILTINS:
        return True
    if name == "printf":
        return "-v" in argv[1:]
    if name == "set":
        return any(not w.startswith(("-", "+")) or w == "--" for w in argv[1:])
    if name in ("declare", "typeset", "local", "export", "readonly", "cd", "pushd"):
        # A directory found by a glob puts a file name in $PWD.
        return any(not is_literal(w) for w in argv[1:])
    return name == "popd"


def value_taints(node: Node) -> bool:
    """An assigned value that may hold code for a later arithmetic evaluation."""
    if node.type == "array":
        return any(value_taints(c) for c in node.named_children)
    word = word_of(node)
    return not is_literal(word) or holds_code(word)


OUTPUT_AS_ARITHMETIC = "arithmetic on a command's output can run commands"
"""`$(( $(cat f) ))`, `[[ $(cat f) -eq 1 ]]`: the output is evaluated, and a subscript in it
(`a[$(cmd)]`) runs cmd (checked with bash 5.2)."""


def arithmetic_problem(node: Node) -> tuple[str | None, str | None]:
    """(conditional, sure) problems of an arithmetic construct or a subscript."""
    found = descendants(node)
    if any(d.type == "command_substitution" for d in found):
        return None, OUTPUT_AS_ARITHMETIC
    if node.type == "subscript":
        index = node.child_by_field_name("index")
        if index is not None and index.type != "number" and index.text not in (b"@", b"*"):
            return "an array subscript that is not a number", None
        return None, None
    if any(d.type in _VARIABLE_NODES for d in found):
        return "arithmetic on variables can run commands", None
    return None, None


def expansion_problems(node: Node) -> tuple[list[str], str | None]:
    """`${x@P}` expands `$(...)` in x's value; `${s:x}` evaluates x as arithmetic;
    `${x:=...}` assigns. Returns the conditional problems and the variable assigned."""
    operators = [c.type for c in node.children if not c.is_named]
    named = list(node.named_children)
    conditional: list[str] = []
    if operators[1:2] == ["!"]:
        conditional.append("indirect expansion ${!x} evaluates the name x holds")
    if "@" in operators and "P" in operators:
        conditional.append("prompt expansion ${x@P} can run commands")
    if ":" in operators and any(c.type not in ("number",) for c in named[1:]):
        conditional.append("a substring offset that is not a number")
    if ":=" not in operators and "=" not in operators:
        return conditional, None
    variable = named[0].text if named and named[0].text else b""
    return conditional, variable.decode("utf-8", "replace")


def test_problems(node: Node) -> tuple[list[str], list[str], bool]:
    """Conditional and sure problems of `[[ ... ]]` and `[ ... ]`, and whether it taints
    (`=~` puts what it matched, perhaps a file's text, in BASH_REMATCH; an operand holding
    `$`). An arithmetic operand whose own text holds a substitution (`[[ 'a[$(cmd)]' -eq 1
    ]]`, quoted or not) runs it: sure."""
    found: list[str] = []
    sure: list[str] = []
    matches = False
    # `[` and `test` compare integers without evaluating them; `[[` evaluates arithmetic.
    evaluates = bool(node.children) and node.children[0].type == "[["
    below = descendants(node)
    substituted = _holding_substitutions(below)
    for child in below:
        matches = matches or (not child.is_named and child.type == "=~")
        if child.type == "unary_expression":
            operator = child.child_by_field_name("operator")
            operand = child.named_children[-1] if child.named_children else None
            word = word_of(operand) if operand is not None else ""
            matches = matches or "$" in word or "`" in word
            if (
                operator is not None
                and operator.text == b"-v"
                and ("[" in word or not is_literal(word))
            ):
                problem = "test -v with an array subscript can run commands"
                (sure if holds_code(word) else found).append(problem)
        if child.type != "binary_expression":
            continue
        operator = child.child_by_field_name("operator")
        if operator is None or operator.text is None:
            continue
        if operator.text.decode() in _ARITHMETIC_OPERATORS:
            operands = [c for c in child.named_children if c is not operator]
            for operand in operands:
                if operand.type == "number":
                    continue
                if operand.id in substituted:
                    sure.append(OUTPUT_AS_ARITHMETIC)
                elif evaluates and holds_code(word_of(operand)):
                    sure.append("[[ arithmetic on text that holds code runs it")
                else:
                    found.append("[[ arithmetic on variables can run commands")
    return found, sure, matches


def _holding_substitutions(found: list[Node]) -> set[int]:
    """The ids of the nodes among `found` (a `descendants` list) that are or hold a command
    substitution, in one pass: asking it of each operand of a chain (`[[ a -eq b -eq c ...`,
    where each operand holds the rest of the chain) is quadratic."""
    holding: set[int] = set()
    for current in reversed(found):  # every node after all of its descendants
        if current.type == "command_substitution" or any(c.id in holding for c in current.children):
            holding.add(current.id)
    return holding


def descendants(node: Node) -> list[Node]:
    """Every node below `node`; each counts against the analysis's bound on syntax nodes
    (an arithmetic expression of 20,000 terms is one node to the walker, 60,000 here)."""
    budget = shell_budget.current()
    out: list[Node] = []
    stack = list(node.children)
    while stack:
        current = stack.pop()
        if budget is not None:
            budget.node()
        out.append(current)
        stack.extend(current.children)
    return out
