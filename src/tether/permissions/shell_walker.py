"""The walk over a Bash command's syntax tree (tree-sitter-bash) that collects the simple
commands that would run and what cannot be understood (shell.py starts it, and gives it the
parser for the code strings it meets: backtick bodies, heredocs, `bash -c`...)."""

from __future__ import annotations

from dataclasses import replace

from tree_sitter import Node

from tether.permissions.dangerous_variables import is_module_path
from tether.permissions.for_values import CommandNames, loop_binding
from tether.permissions.pipeline_inputs import with_listed_input
from tether.permissions.remote_shells import REACH_VARIABLES
from tether.permissions.script import Invocation, Redirect
from tether.permissions.shell_budget import Budget
from tether.permissions.shell_chains import runs_after_success
from tether.permissions.shell_checks import (
    arithmetic_problem,
    taints,
    test_problems,
    value_taints,
)
from tether.permissions.shell_hidden import (
    OUTSIDE,
    Quoting,
    quoting_below,
)
from tether.permissions.shell_hidden_code import PARSE_ERROR, HiddenCodeWalker
from tether.permissions.shell_redirects import (
    fields,
    node_text,
    redirect_targets,
)
from tether.permissions.shell_variables import (
    arithmetic_assigns,
    variables_set,
)
from tether.permissions.shell_words import (
    argument_of,
    bound,
    is_literal,
    is_locale_dollar,
    word_of,
)
from tether.permissions.wrappers import MAX_DEPTH, ParseCode, look_through

TOO_DEEP = "too deeply nested to judge"
_RESERVED_BYTES = frozenset(
    {b"{", b"}", b"(", b")", b"do", b"done", b"then", b"fi", b"esac", b"elif", b"else"}
)
"""Reserved words tree-sitter sometimes takes for command names (`coproc X { cmd; }`): bash
reads them as syntax, so the tree is not what bash runs."""
_REPEATING = frozenset(
    {"function_definition", "for_statement", "c_style_for_statement", "while_statement"}
)
"""What runs inside these may run again after the commands that follow them."""


class Walker(HiddenCodeWalker):
    """One walk over one tree: the invocations found, what could not be understood, and
    what may make a variable hold code (`conditional`, kept only if something does)."""

    def __init__(self, depth: int, parse: ParseCode, budget: Budget | None = None) -> None:
        self.parse = parse
        """Reads a code string met on the way (`parse_command`)."""
        self.budget = budget
        self.depth = depth
        """How deeply the node being visited is nested: bounded, so that no input recurses
        without end."""
        self.bodies: dict[int, str] = {}
        """Heredoc bodies as written, where the tree was parsed without them (shell_heredocs)."""
        self.invocations: list[Invocation] = []
        self.problems: list[str] = []
        self.conditional: list[str] = []
        """Problems that stand only if some variable may hold code (shell_checks.py)."""
        self.tainted = False
        self.functions = False
        self.dynamic_arguments = False
        """A function called with an argument not known (`f "$(<n)"`) has it in `$1`."""
        self.arithmetic = 0
        """How many arithmetic constructs enclose the node being visited."""
        self.repeating = 0
        """How many function bodies and loops enclose the node being visited: what runs there
        may run again after what follows (`Invocation.late`)."""
        self.names: CommandNames | None = None
        """The variables the command's text names, read at its first `for` (for_values)."""
        self.path: list[Node] = []
        self.reaches: dict[str, str] = {}
        """REACH_VARIABLES set earlier on the line, by name (a later setting wins)."""
        """The nodes from the root down to the one being visited (tree-sitter's `parent` walks
        down from the root on every call)."""
        self.quoting: list[Quoting] = [OUTSIDE]
        """What the nodes of `path` make of a single quote below them (shell_hidden), one
        entry more than `path`: the top one is below the node being visited."""

    def visit(self, node: Node) -> None:
        if self.depth >= MAX_DEPTH:
            self.problems.append(TOO_DEEP)
            return
        if self.budget is not None:
            self.budget.node()
        self.depth += 1
        self._enter(node)
        repeats = node.type in _REPEATING
        self.repeating += repeats
        self._visit(node)
        self.repeating -= repeats
        self._leave()
        self.depth -= 1

    def _enter(self, node: Node) -> None:
        self.path.append(node)
        self.quoting.append(quoting_below(self.quoting[-1], node))

    def _leave(self) -> None:
        self.path.pop()
        self.quoting.pop()

    def _parent(self) -> Node | None:
        """The parent of the node being visited."""
        return self.path[-2] if len(self.path) > 1 else None

    def _visit(self, node: Node) -> None:
        kind = node.type
        if kind == "command":
            self._command(node, [], [])
        elif kind == "redirected_statement":
            self._redirected(node)
        elif kind in ("variable_assignment", "variable_assignments"):
            nodes = [node] if kind == "variable_assignment" else list(node.named_children)
            self._assignments(nodes)
        elif kind == "declaration_command":
            self._declaration(node)
        elif kind == "unset_command":
            self._visit_children(node)
            words = tuple(word_of(c) for c in node.children)
            self._add(Invocation(words))
            self._names(words)
            self.sets(variables_set(words))
        elif kind in ("arithmetic_expansion", "c_style_for_statement", "subscript") or (
            kind == "compound_statement" and node.child_count and node.children[0].type == "(("
        ):
            # Arithmetic inside arithmetic was searched with the outer one (its problems and
            # assignments are among the outer's): searching each level again is quadratic.
            nested = self.arithmetic > 0 and kind != "subscript"
            conditional, sure = (None, None) if nested else arithmetic_problem(node)
            if conditional is not None:
                self.conditional.append(conditional)
            self.arithmetic += 1
            try:
                self._visit_children(node)
            finally:
                self.arithmetic -= 1
            if sure is not None:
                self.problems.append(sure)  # after what is inside: a deeper problem comes first
            if not nested:
                self.sets(arithmetic_assigns(node_text(node)))
        elif kind == "expansion":
            self._expansion(node)
            self._visit_children(node)
        elif kind == "test_command":
            conditional, sure, matches = test_problems(node)
            self.conditional.extend(conditional)
            self.problems.extend(sure)
            self.tainted = self.tainted or matches
            self._visit_children(node)
        elif kind == "command_substitution" and node.children and node.children[0].type == "`":
            self._backticks(node)
        elif kind == "for_statement":
            # `for x in *.py`: the values come from outside (file names, command output).
            values = [c for field, c in fields(node) if field == "value"]
            self.tainted = self.tainted or any(value_taints(v) for v in values)
            self.tainted = self.tainted or node.children[0].type == "select"
            variable = node.child_by_field_name("variable")
            if variable is not None:
                self.sets([node_text(variable)])
            if self.names is None:
                self.names = CommandNames.of(node_text(self.path[0]))
            binding = loop_binding(node, self.names)
            if binding is None:
                self._visit_children(node)
            else:
                with bound(*binding):
                    self._visit_children(node)
        elif kind == "function_definition":
            self.functions = True
            self._visit_children(node)
        elif kind == "file_redirect":
            # A redirection with no command: `$(<file)` reads it, `> file` truncates it.
            extra: list[str] = []
            self._add(Invocation((), redirects=tuple(redirect_targets(node, extra))))
            if extra:
                self.problems.append("words after a redirection without a command")
            self._visit_children(node)
        elif kind == "heredoc_redirect":
            self._heredoc(node)
        elif kind == "ERROR" or node.is_missing:
            self.problems.append(PARSE_ERROR)
            self._visit_children(node)
        elif node.child_count == 0:
            self._leaf(node)
        elif kind == "pipeline":
            self._pipeline(node)
        elif kind == "list" and self.repeating == 0 and runs_after_success(node):
            self._chain(node)
        else:
            self._visit_children(node)

    def _pipeline(self, node: Node) -> None:
        """`ls | xargs CMD`: the words xargs adds are the names ls prints (pipeline_inputs),
        wherever the pair stands in the pipeline (`find ... | xargs wc -l | sort`)."""
        before = len(self.invocations)
        self._visit_children(node)
        added = self.invocations[before:]
        kinds = [c.type for c in node.named_children]
        if len(added) != len(kinds) or any(kind != "command" for kind in kinds):
            return
        for i in range(len(added) - 1):
            consumer = with_listed_input(added[i], added[i + 1])
            if consumer is not None:
                self.invocations[before + i + 1] = consumer

    def _chain(self, node: Node) -> None:
        """`cd src && make`: the first command of the right side runs after the left's last."""
        self.visit(node.children[0])
        first = len(self.invocations)
        for child in node.children[1:]:
            self.visit(child)
        if first < len(self.invocations) and not self.invocations[first].late:
            self.invocations[first] = replace(self.invocations[first], chained=True)

    def _visit_children(self, node: Node) -> None:
        for child in node.children:
            self.visit(child)

    def _add(self, invocation: Invocation) -> None:
        if self.budget is not None:
            self.budget.command()
        self._extend((invocation,))

    def _extend(self, invocations: tuple[Invocation, ...]) -> None:
        if self.repeating:
            invocations = tuple(replace(inv, late=True) for inv in invocations)
        self.invocations.extend(self._with_reaches(inv) for inv in invocations)

    def _with_reaches(self, inv: Invocation) -> Invocation:
        """`inv` with the places an earlier assignment or `export` on the line set for what
        runs after it (`export CVSROOT=:ext:h:/r; cvs up` reaches h by ssh: remote_shells)."""
        if inv.persistent:
            self.reaches.update((k, v) for k, v in inv.assignments if k in REACH_VARIABLES)
            return inv
        own = {name for name, _ in inv.assignments}
        carried = tuple((k, v) for k, v in self.reaches.items() if k not in own)
        if not inv.argv or not carried:
            return inv
        return replace(inv, assignments=(*carried, *inv.assignments))

    def _command(self, node: Node, redirects: list[Redirect], extra_args: list[str]) -> None:
        assignments: list[tuple[str, str]] = []
        words: list[str] = []
        word_end = -1
        for field, child in fields(node):
            if child.type == "variable_assignment":
                assignments.append(self._assignment(child))
                continue
            if field == "redirect" or child.type.endswith("redirect"):
                redirects = [*redirects, *redirect_targets(child, words)]
                self._visit_redirect(child)
                continue
            if field in ("name", "argument"):
                if is_locale_dollar(child):
                    continue  # `$"text"` split in two: the next word is the text
                if child.type == "$" and not child.is_named and child.next_sibling is not None:
                    self.problems.append('unsupported $"..." quoting')
                self.visit(child)  # first: its nodes count against the bound before they are read
                if child.start_byte == word_end and words:
                    # tree-sitter splits a word at a backquote (`` cu`x`rl ``, `` a`x`b ``):
                    # with nothing between them, bash reads one word.
                    words[-1] += word_of(child)
                elif field == "argument":
                    words.append(argument_of(child, here=is_module_path))
                else:
                    words.append(word_of(child))
                word_end = child.end_byte
                if field == "name" and child.text in _RESERVED_BYTES:
                    self.problems.append(PARSE_ERROR)
                continue
            self.visit(child)
        argv = (*words, *extra_args)
        self._names(argv)
        self.tainted = self.tainted or taints(argv)
        self.dynamic_arguments = self.dynamic_arguments or not all(map(is_literal, argv))
        invocation = look_through(
            argv,
            tuple(assignments),
            tuple(redirects),
            parse_code=self.parse,
            depth=self.depth,
        )
        self._add(invocation)
        self._builtin_sets(invocation)

    def _redirected(self, node: Node) -> None:
        body = node.child_by_field_name("body")
        redirects: list[Redirect] = []
        extra_args: list[str] = []
        for field, child in fields(node):
            if field == "redirect":
                redirects.extend(redirect_targets(child, extra_args))
                self._visit_redirect(child)
        if body is not None and body.type == "command":
            self._enter(body)
            self._command(body, redirects, extra_args)
            self._leave()
            return
        if body is not None:
            self.visit(body)
        if extra_args:
            self.problems.append("words after a redirection of a compound command")
        if redirects:
            self._add(Invocation((), redirects=tuple(redirects)))

    def _visit_redirect(self, node: Node) -> None:
        """What a redirection runs (substitutions in its target, a heredoc's body and the
        commands tree-sitter hangs under it), without taking it for a statement."""
        self._enter(node)
        if node.type == "heredoc_redirect":
            self._heredoc(node)
        else:
            self._visit_children(node)
        self._leave()
