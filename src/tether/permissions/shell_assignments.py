"""What the walk over a Bash command's syntax tree makes of variables (shell_walker.Walker
builds on it): assignment words, `declare`/`local`/`export` and the options that make a
variable evaluate what it is given (`-i`, `-n`), compound assignments read again as bash reads
them, variables builtins set (shell_variables), values bash evaluates as arithmetic, and
parameter expansions that assign (`${x:=v}`) or hold arithmetic."""

from __future__ import annotations

from tree_sitter import Node

from tether.permissions.dangerous_variables import is_dangerous_variable, is_module_path
from tether.permissions.script import Invocation
from tether.permissions.shell_checks import (
    expansion_problems,
    holds_code,
    name_problems,
    taints,
    value_taints,
)
from tether.permissions.shell_redirects import node_text
from tether.permissions.shell_variables import (
    ARITHMETIC_ON_ASSIGNMENT,
    arithmetic_assigns,
    compound_assignments,
    variables_set,
)
from tether.permissions.shell_words import is_literal, value_of, word_of
from tether.permissions.wrappers import ParseCode


class AssignmentWalker:
    """The variables side of one walk; `Walker` supplies the state and the visiting."""

    parse: ParseCode
    depth: int
    problems: list[str]
    conditional: list[str]
    tainted: bool

    def visit(self, node: Node) -> None:
        raise NotImplementedError

    def _add(self, invocation: Invocation) -> None:
        raise NotImplementedError

    def _extend(self, invocations: tuple[Invocation, ...]) -> None:
        raise NotImplementedError

    def _builtin_sets(self, invocation: Invocation) -> None:
        """Variables set by a builtin, also one a wrapper runs (`command printf -v PATH .`)."""
        self.sets(variables_set(invocation.argv))
        if invocation.role == "wrapper":
            for inner in invocation.inner:
                self._builtin_sets(inner)

    def _names(self, argv: tuple[str, ...]) -> None:
        conditional, sure = name_problems(argv)
        self.conditional.extend(conditional)
        self.problems.extend(sure)

    def sets(self, names: list[str]) -> None:
        """Variables set other than by an assignment word (shell_variables): judged as an
        assignment would be."""
        for name in names:
            if not is_literal(name) or not name:
                # From the environment, which the command cannot change, unless it gave the
                # variable a value itself.
                self.conditional.append("sets a variable whose name is not a literal")
            elif is_dangerous_variable(name):
                self.problems.append(f"sets {name}, which changes what programs run or load")
            elif name.split("[", 1)[0] in ARITHMETIC_ON_ASSIGNMENT:
                self.conditional.append(f"{name} evaluates the arithmetic it is given")

    def _assignment(self, node: Node) -> tuple[str, str]:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        name = name_node.text.decode("utf-8", "replace") if name_node and name_node.text else ""
        if value_node is not None:
            self.visit(value_node)
            self.tainted = self.tainted or value_taints(value_node)
            if name in ARITHMETIC_ON_ASSIGNMENT:
                self._arithmetic_value(name, word_of(value_node))
        if name_node is not None and name_node.type == "subscript":
            self.visit(name_node)
        if value_node is None:
            return name, ""
        return name, value_of(value_node, here=is_module_path(name))

    def _assignments(self, nodes: list[Node]) -> None:
        pairs = tuple(self._assignment(n) for n in nodes if n.type == "variable_assignment")
        self._add(Invocation((), pairs, persistent=True))

    def _declaration(self, node: Node) -> None:
        words: list[str] = []
        assignments: list[tuple[str, str]] = []
        quoted: list[str] = []
        for child in node.children:
            if child.type == "variable_assignment":
                assignments.append(self._assignment(child))
                name_node = child.child_by_field_name("name")
                words.append(name_node.text.decode() if name_node and name_node.text else "")
                value_node = child.child_by_field_name("value")
                if value_node is not None and value_node.type != "array":
                    # `declare -a a='($(cmd))'` is read again as `a=($(cmd))`.
                    quoted.append(f"{assignments[-1][0]}={assignments[-1][1]}")
            else:
                self.visit(child)
                words.append(word_of(child))
        options = "".join(w[1:] for w in words[1:] if w.startswith("-"))
        integer = "i" in options
        if integer or "n" in options:
            self.conditional.append("integer and reference variables evaluate what they are given")
        if integer:
            for name, value in assignments:
                self._arithmetic_value(name, value)
        if "n" in options and words[:1] != ["export"]:
            # A reference's value names the variable its assignments set (`declare -n r=PATH;
            # r=.`); one with no value gets it from its first assignment, unseen here.
            valued = {name for name, _ in assignments}
            self.sets([value for _, value in assignments])
            for word in words[1:]:
                if not word.startswith("-") and word not in valued:
                    self.problems.append("a reference variable whose target is set later")
        self._names(tuple(words))
        # A name given a value here is judged with its value, as an assignment word
        # (bash_policy: `declare -x NODE_OPTIONS=--enable-source-maps`), not as one set blind.
        valued = {name for name, _ in assignments}
        self.sets([name for name in variables_set(tuple(words)) if name not in valued])
        self.tainted = self.tainted or taints(tuple(words))
        self._add(Invocation(tuple(words), tuple(assignments), persistent=True))
        for code in compound_assignments((words[0], *quoted, *words[1:])):
            # `declare -a 'a=($(cmd))'`: bash reads the quoted word's list again as the
            # compound assignment it spells, and its substitutions run.
            if not code:
                self.problems.append("a compound assignment whose list is only known when it runs")
                continue
            inner = self.parse(code, self.depth + 1)
            self._extend(inner.invocations)
            self.problems.extend(inner.problems)

    def _arithmetic_value(self, name: str, value: str) -> None:
        """A value bash evaluates as arithmetic on assignment (`declare -i`, `OPTIND`)."""
        if holds_code(value):
            self.problems.append(f"{name} evaluates the arithmetic it is given, which holds code")
            self.sets(arithmetic_assigns(value))

    def _expansion(self, node: Node) -> None:
        if node.child_count and node.children[0].type == "${" and node.children[-1].type != "}":
            # `${x:0:'$(cmd)'}`, `${a['$(cmd)']}`: the tree ends the expansion early, and
            # what it shows after it is not what bash expands.
            self.problems.append("a parameter expansion that the parser does not read as bash does")
        conditional, assigned = expansion_problems(node)
        self.conditional.extend(conditional)
        if conditional:
            # `${x:PATH=0}`: an offset is arithmetic.
            self.sets(arithmetic_assigns(node_text(node)))
        if assigned is not None:
            self.tainted = True
            if is_dangerous_variable(assigned):
                self.problems.append(f"assigns {assigned}, which changes what programs run")
