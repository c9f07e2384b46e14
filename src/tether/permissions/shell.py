"""A Bash command line, parsed with tree-sitter-bash into the simple commands that would run.

Every simple command counts, wherever it sits: in lists and pipelines, subshells, `$()`,
backticks, `<()`, `if`/`for`/`while`/`case` bodies, function bodies, heredoc substitutions,
and inside the code strings of `bash -c`, `eval`, `find -exec`... (see wrappers.py). What cannot
be understood is recorded as a problem, which makes the command asked, never allowed.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

import tree_sitter
import tree_sitter_bash
from tree_sitter import Node

from tether.permissions.commands import SUBSCRIPT_NAME_BUILTINS, is_dangerous_variable
from tether.permissions.script import Invocation, Redirect, Script
from tether.permissions.shell_words import is_literal, program_name, word_of
from tether.permissions.wrappers import look_through

_lock = threading.Lock()
_parser: tree_sitter.Parser | None = None

_DUPLICATIONS = frozenset({">&", "<&", ">&-", "<&-"})
_READ_REDIRECTS = frozenset({"<"})
_ARITHMETIC_OPERATORS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_VARIABLE_NODES = frozenset({"variable_name", "simple_expansion", "expansion", "word"})


def _parse_tree(source: bytes) -> tree_sitter.Tree:
    global _parser
    with _lock:
        if _parser is None:
            _parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
        return _parser.parse(source)


@lru_cache(maxsize=2048)
def parse_command(command: str, depth: int = 0) -> Script:
    """The invocations `command` would run, in source order, and what could not be understood."""
    source = command.encode("utf-8", "surrogateescape")
    tree = _parse_tree(source)
    walker = _Walker(depth)
    walker.visit(tree.root_node)
    problems = list(walker.problems)
    if tree.root_node.has_error:
        problems.insert(0, "the command does not parse cleanly")
    if _joins_words(command):
        problems.append("a line continuation inside a word")
    return Script(tuple(walker.invocations), tuple(dict.fromkeys(problems)))


class _Walker:
    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.invocations: list[Invocation] = []
        self.problems: list[str] = []

    def visit(self, node: Node) -> None:
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
            words = tuple(word_of(c) for c in node.children)
            self._add(Invocation(words))
            self._check_names(words)
        elif kind in ("arithmetic_expansion", "c_style_for_statement", "subscript") or (
            kind == "compound_statement" and node.child_count and node.children[0].type == "(("
        ):
            self._arithmetic(node)
            self._visit_children(node)
        elif kind == "expansion":
            self._expansion(node)
            self._visit_children(node)
        elif kind == "test_command":
            self._test(node)
            self._visit_children(node)
        elif kind == "file_redirect":
            # A redirection with no command: `$(<file)` reads it, `> file` truncates it.
            extra: list[str] = []
            self._add(Invocation((), redirects=tuple(self._redirect(node, extra))))
            if extra:
                self.problems.append("words after a redirection without a command")
            self._visit_children(node)
        elif kind == "heredoc_redirect":
            self._heredoc(node)
        elif kind == "ERROR" or node.is_missing:
            self.problems.append("the command does not parse cleanly")
            self._visit_children(node)
        else:
            self._visit_children(node)

    def _visit_children(self, node: Node) -> None:
        for child in node.children:
            self.visit(child)

    def _add(self, invocation: Invocation) -> None:
        self.invocations.append(invocation)

    def _command(self, node: Node, redirects: list[Redirect], extra_args: list[str]) -> None:
        assignments: list[tuple[str, str]] = []
        words: list[str] = []
        for i, child in enumerate(node.children):
            field = node.field_name_for_child(i)
            if child.type == "variable_assignment":
                assignments.append(self._assignment(child))
                continue
            if field == "redirect" or child.type.endswith("redirect"):
                redirects = [*redirects, *self._redirect(child, words)]
                self._visit_redirect(child)
                continue
            if field in ("name", "argument"):
                if not child.is_named and child.type == "$":
                    self.problems.append('unsupported $"..." quoting')
                words.append(word_of(child))
            self.visit(child)
        argv = (*words, *extra_args)
        self._check_names(argv)
        self._add(
            look_through(
                argv,
                tuple(assignments),
                tuple(redirects),
                parse_code=parse_command,
                depth=self.depth,
            )
        )

    def _redirected(self, node: Node) -> None:
        body = node.child_by_field_name("body")
        redirects: list[Redirect] = []
        extra_args: list[str] = []
        for i, child in enumerate(node.children):
            if node.field_name_for_child(i) == "redirect":
                redirects.extend(self._redirect(child, extra_args))
                self._visit_redirect(child)
        if body is not None and body.type == "command":
            self._command(body, redirects, extra_args)
            return
        if body is not None:
            self.visit(body)
        if extra_args:
            self.problems.append("words after a redirection of a compound command")
        if redirects:
            self._add(Invocation((), redirects=tuple(redirects)))

    def _redirect(self, node: Node, extra_args: list[str]) -> list[Redirect]:
        """The file a redirection opens; words tree-sitter puts after its target are really
        arguments of the command (`cat 2>/dev/null .env`), so they go to `extra_args`."""
        if node.type == "heredoc_redirect":
            # tree-sitter hangs what follows `<<EOF` on the line (more arguments, other
            # redirections) under the heredoc node.
            nested: list[Redirect] = []
            for i, child in enumerate(node.children):
                if node.field_name_for_child(i) == "argument":
                    extra_args.append(word_of(child))
                elif child.type == "file_redirect":
                    nested.extend(self._redirect(child, extra_args))
            return nested
        if node.type != "file_redirect":
            return []
        op = next((c.type for c in node.children if not c.is_named), "")
        targets = [
            c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "destination"
        ]
        extra_args.extend(word_of(c) for c in targets[1:])
        if not targets:
            return []
        target = word_of(targets[0])
        if op in _DUPLICATIONS and (targets[0].type == "number" or target == "-"):
            return []
        return [Redirect(op, target, writes=op not in _READ_REDIRECTS)]

    def _visit_redirect(self, node: Node) -> None:
        """What a redirection runs (substitutions in its target, a heredoc's body and the
        commands tree-sitter hangs under it), without taking it for a statement."""
        if node.type == "heredoc_redirect":
            self._heredoc(node)
        else:
            self._visit_children(node)

    def _heredoc(self, node: Node) -> None:
        for child in node.children:
            if child.type == "file_redirect":
                self._visit_children(child)
            else:
                self.visit(child)
        start = next((c for c in node.children if c.type == "heredoc_start"), None)
        body = next((c for c in node.children if c.type == "heredoc_body"), None)
        quoted = start is None or any(q in _node_text(start) for q in "'\"\\")
        text = _node_text(body) if body is not None else ""
        if quoted or not any(s in text for s in ("`", "$(", "${", "$[")):
            return
        # The body of an unquoted heredoc is expanded like a double-quoted string; tree-sitter
        # does not always parse it (backticks), so it is parsed again as one.
        inner = parse_command(': "' + text.replace('"', '\\"') + '"', self.depth + 1)
        self.invocations.extend(inner.invocations)
        self.problems.extend(inner.problems)

    def _assignment(self, node: Node) -> tuple[str, str]:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        name = name_node.text.decode("utf-8", "replace") if name_node and name_node.text else ""
        if value_node is not None:
            self.visit(value_node)
        if name_node is not None and name_node.type == "subscript":
            self.visit(name_node)
        return name, word_of(value_node) if value_node is not None else ""

    def _assignments(self, nodes: list[Node]) -> None:
        pairs = tuple(self._assignment(n) for n in nodes if n.type == "variable_assignment")
        self._add(Invocation((), pairs, persistent=True))

    def _declaration(self, node: Node) -> None:
        words: list[str] = []
        assignments: list[tuple[str, str]] = []
        for child in node.children:
            if child.type == "variable_assignment":
                assignments.append(self._assignment(child))
                name_node = child.child_by_field_name("name")
                words.append(name_node.text.decode() if name_node and name_node.text else "")
            else:
                words.append(word_of(child))
                self.visit(child)
        if any(w.startswith("-") and ("i" in w or "n" in w) for w in words[1:]):
            self.problems.append("integer and reference variables evaluate what they are given")
        self._check_names(tuple(words))
        self._add(Invocation(tuple(words), tuple(assignments), persistent=True))

    def _check_names(self, argv: tuple[str, ...]) -> None:
        """`read 'a[$(cmd)]'`, `printf -v 'a[$(cmd)]'`: bash evaluates array subscripts in
        variable names, which can run commands."""
        if not argv or not is_literal(argv[0]):
            return
        name = program_name(argv[0])
        if name == "let":
            self.problems.append("let evaluates arithmetic, which can run commands")
            return
        if name not in SUBSCRIPT_NAME_BUILTINS:
            return
        args = argv[1:]
        if name in ("printf", "test", "["):
            # Only the word after -v names a variable there.
            names = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-v"]
        else:
            names = [a for a in args if not a.startswith("-")]
        if any("[" in n or not is_literal(n) for n in names):
            self.problems.append(f"{name} with an array subscript can run commands")

    def _arithmetic(self, node: Node) -> None:
        """Arithmetic on a variable evaluates the variable's text as an expression, and an
        array subscript in it can run a command (`x='a[$(cmd)]'; echo $((x))`)."""
        if node.type == "subscript":
            index = node.child_by_field_name("index")
            if index is not None and index.type != "number" and index.text not in (b"@", b"*"):
                self.problems.append("an array subscript that is not a number")
            return
        if _mentions_variable(node):
            self.problems.append("arithmetic on variables can run commands")

    def _expansion(self, node: Node) -> None:
        """`${x@P}` expands `$(...)` in x's value; `${s:x}` evaluates x as arithmetic;
        `${PATH:=...}` assigns."""
        operators = [c.type for c in node.children if not c.is_named]
        named = [c for c in node.named_children]
        variable = named[0].text.decode() if named and named[0].text else ""
        if "@" in operators and "P" in operators:
            self.problems.append("prompt expansion ${x@P} can run commands")
        if ":" in operators and any(c.type not in ("number",) for c in named[1:]):
            self.problems.append("a substring offset that is not a number")
        if (":=" in operators or "=" in operators) and is_dangerous_variable(variable):
            self.problems.append(f"assigns {variable}, which changes what programs run")

    def _test(self, node: Node) -> None:
        for child in _descendants(node):
            if child.type == "unary_expression":
                operator = child.child_by_field_name("operator")
                operand = child.named_children[-1] if child.named_children else None
                word = word_of(operand) if operand is not None else ""
                if (
                    operator is not None
                    and operator.text == b"-v"
                    and ("[" in word or not is_literal(word))
                ):
                    self.problems.append("test -v with an array subscript can run commands")
            if child.type != "binary_expression":
                continue
            operator = child.child_by_field_name("operator")
            if operator is None or operator.text is None:
                continue
            if operator.text.decode() in _ARITHMETIC_OPERATORS:
                operands = [c for c in child.named_children if c is not operator]
                if any(o.type != "number" for o in operands):
                    self.problems.append("[[ arithmetic on variables can run commands")


_CONTINUATION = re.compile(r"(?<![\\])(?:\\\\)*\\\n")


def _joins_words(command: str) -> bool:
    """A backslash-newline between two non-blank characters joins them into one word for bash
    (`.e`, backslash, newline, `nv` is `.env`), where tree-sitter sees two words."""
    for found in _CONTINUATION.finditer(command):
        backslash = found.end() - 2
        before = command[backslash - 1] if backslash else " "
        after = command[found.end()] if found.end() < len(command) else " "
        if not before.isspace() and not after.isspace():
            return True
    return False


def _node_text(node: Node) -> str:
    return node.text.decode("utf-8", "surrogateescape") if node.text is not None else ""


def _descendants(node: Node) -> list[Node]:
    out: list[Node] = []
    stack = list(node.children)
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(current.children)
    return out


def _mentions_variable(node: Node) -> bool:
    return any(d.type in _VARIABLE_NODES for d in _descendants(node))
