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
import threading
from functools import lru_cache

import tree_sitter
import tree_sitter_bash
from tree_sitter import Node

from tether.permissions import shell_budget
from tether.permissions.commands import is_dangerous_variable
from tether.permissions.script import Invocation, Redirect, Script
from tether.permissions.shell_budget import MAX_BYTES, TOO_LARGE, Budget, TooLarge
from tether.permissions.shell_checks import (
    arithmetic_problem,
    expansion_problems,
    holds_code,
    name_problems,
    taints,
    test_problems,
    value_taints,
)
from tether.permissions.shell_hidden import (
    backtick_body,
    control_character,
    heredoc_as_string,
    hidden_opener,
    joins_words,
    plain_quoted_text,
    quotes_are_plain,
)
from tether.permissions.shell_variables import (
    ARITHMETIC_ON_ASSIGNMENT,
    arithmetic_assigns,
    fd_variables,
    variables_set,
)
from tether.permissions.shell_words import is_literal, is_locale_dollar, word_of
from tether.permissions.wrappers import MAX_DEPTH, look_through

_lock = threading.Lock()
_parser: tree_sitter.Parser | None = None

_DUPLICATIONS = frozenset({">&", "<&", ">&-", "<&-"})
_READ_REDIRECTS = frozenset({"<"})
TOO_DEEP = "too deeply nested to judge"
PARSE_ERROR = "the command does not parse cleanly"
_SCANNED_LEAVES = frozenset({"word", "regex", "extglob_pattern", "string_content", "number"})
"""Leaves whose text bash may still expand (not quoted strings, comments, heredoc text)."""
_RESERVED_BYTES = frozenset(
    {b"{", b"}", b"(", b")", b"do", b"done", b"then", b"fi", b"esac", b"elif", b"else"}
)
"""Reserved words tree-sitter sometimes takes for command names (`coproc X { cmd; }`): bash
reads them as syntax, so the tree is not what bash runs."""


_PAST_BRACE_OR_DOT = re.compile(rb"[{.][\x80-\xff]")


def scanner_safe(source: bytes) -> bytes:
    """`source` with every character of U+0100 or above (or byte that is not UTF-8) right
    after `{` or `.` masked by as many `_`: tree-sitter-bash's scanner (0.25) passes the
    character after `{` and after `{N..` to `isdigit`, which indexes the C library's table
    out of bounds for such a code point and can crash the whole process (`echo {\U0010fff0}`
    did). Same length, so every node keeps its offsets; the caller says the text was masked."""
    if _PAST_BRACE_OR_DOT.search(source) is None:
        return source
    masked = bytearray(source)
    for found in _PAST_BRACE_OR_DOT.finditer(source):
        start = found.start() + 1
        char = source[start : start + 4].decode("utf-8", "surrogateescape")[0]
        if ord(char) >= 0x100:
            size = len(char.encode("utf-8", "surrogateescape"))
            masked[start : start + size] = b"_" * size
    return bytes(masked)


def _parse_tree(source: bytes) -> tree_sitter.Tree:
    global _parser
    with _lock:
        if _parser is None:
            _parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
        return _parser.parse(source)


@lru_cache(maxsize=2048)
def parse_command(command: str, depth: int = 0) -> Script:
    """The invocations `command` would run, in source order, and what could not be understood.
    `depth` is how deeply this code is nested (tree levels, wrappers, code strings): past
    `MAX_DEPTH`, nothing more is read and the command is too deeply nested to judge."""
    if depth > MAX_DEPTH:
        return Script((), (TOO_DEEP,))
    if shell_budget.current() is not None:
        return _read(command, depth)
    if len(command) > MAX_BYTES:
        return Script((), (TOO_LARGE,))
    shell_budget.begin()
    try:
        return _read(command, depth)
    except TooLarge:
        return Script((), (TOO_LARGE,))
    finally:
        shell_budget.end()


def _read(command: str, depth: int) -> Script:
    budget = shell_budget.current()
    if budget is not None:
        budget.text(len(command))
    problems: list[str] = []
    control = control_character(command)
    if control is not None:
        problems.append(f"a control character ({control}) that bash may read differently")
    try:
        source = command.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        source = command.encode("utf-8", "surrogatepass")
        problems.append("text that is not valid Unicode")
    safe = scanner_safe(source)
    if safe != source:
        problems.append("characters the shell parser cannot read safely after `{` or `.`")
    tree = _parse_tree(safe)
    walker = _Walker(depth, budget)
    walker.visit(tree.root_node)
    walker.sets(fd_variables(command))
    if tree.root_node.has_error:
        problems.insert(0, PARSE_ERROR)
    if joins_words(command):
        problems.append("a line continuation inside a word")
    problems.extend(walker.problems)
    if walker.tainted or (walker.functions and walker.dynamic_arguments) or depth > 0:
        # Code read again (bash -c, eval, backticks) may see variables set outside it.
        problems.extend(walker.conditional)
    return Script(tuple(walker.invocations), tuple(dict.fromkeys(problems)))


class _Walker:
    def __init__(self, depth: int, budget: Budget | None = None) -> None:
        self.budget = budget
        self.depth = depth
        """How deeply the node being visited is nested: bounded, so that no input recurses
        without end."""
        self.invocations: list[Invocation] = []
        self.problems: list[str] = []
        self.conditional: list[str] = []
        """Problems that stand only if some variable may hold code (shell_checks.py)."""
        self.tainted = False
        self.functions = False
        self.dynamic_arguments = False
        """A function called with an argument not known (`f "$(<n)"`) has it in `$1`."""

    def visit(self, node: Node) -> None:
        if self.depth >= MAX_DEPTH:
            self.problems.append(TOO_DEEP)
            return
        if self.budget is not None:
            self.budget.node()
        self.depth += 1
        self._visit(node)
        self.depth -= 1

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
            words = tuple(word_of(c) for c in node.children)
            self._add(Invocation(words))
            self._names(words)
            self.sets(variables_set(words))
            self._visit_children(node)
        elif kind in ("arithmetic_expansion", "c_style_for_statement", "subscript") or (
            kind == "compound_statement" and node.child_count and node.children[0].type == "(("
        ):
            conditional, sure = arithmetic_problem(node)
            if conditional is not None:
                self.conditional.append(conditional)
            self._visit_children(node)
            if sure is not None:
                self.problems.append(sure)  # after what is inside: a deeper problem comes first
            self.sets(arithmetic_assigns(_node_text(node)))
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
            values = [c for field, c in _fields(node) if field == "value"]
            self.tainted = self.tainted or any(value_taints(v) for v in values)
            self.tainted = self.tainted or node.children[0].type == "select"
            variable = node.child_by_field_name("variable")
            if variable is not None:
                self.sets([_node_text(variable)])
            self._visit_children(node)
        elif kind == "function_definition":
            self.functions = True
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
            self.problems.append(PARSE_ERROR)
            self._visit_children(node)
        elif node.child_count == 0:
            self._leaf(node)
        else:
            self._visit_children(node)

    def _leaf(self, node: Node) -> None:
        if node.type in ("raw_string", "ansi_c_string"):
            if quotes_are_plain(node):
                self._plain_quotes(node)
            return
        if node.type not in _SCANNED_LEAVES:
            return
        parent = node.parent
        quoted = node.type == "string_content" or (parent is not None and parent.type == "string")
        opener = hidden_opener(_node_text(node), quoted=quoted)
        if opener is not None:
            shown = "a backtick" if opener == "`" else f"`{opener}`"
            self.problems.append(f"{shown} in a word, which bash expands unseen by the parser")

    def _plain_quotes(self, node: Node) -> None:
        """`'...'` where bash takes the quotes for plain characters (shell_hidden): what is
        inside is expanded as in double quotes."""
        text = plain_quoted_text(node)
        if text is None:
            self.problems.append('single quotes that bash reads as plain characters, with a `"`')
            return
        if not any(opener in text for opener in ("`", "$(", "${", "$[")):
            return
        inner = parse_command(': "' + text + '"', self.depth + 1)
        self.invocations.extend(inner.invocations)
        self.problems.extend(inner.problems)

    def _backticks(self, node: Node) -> None:
        """bash reads the text between backticks again once their backslashes are removed,
        so `` \\` `` inside opens a nested substitution that tree-sitter leaves as a word."""
        first, last = node.children[0], node.children[-1]
        if last.type != "`" or last.start_byte < first.end_byte or node.text is None:
            self.problems.append(PARSE_ERROR)
            return
        # The opening token may hold the blank before it (`"$(a) `b`"`).
        raw = node.text[first.end_byte - node.start_byte : last.start_byte - node.start_byte]
        parent = node.parent
        in_string = parent is not None and parent.type == "string"
        text = raw.decode("utf-8", "surrogateescape")
        inner = parse_command(backtick_body(text, in_double_quotes=in_string), self.depth)
        self.invocations.extend(inner.invocations)
        self.problems.extend(inner.problems)

    def _visit_children(self, node: Node) -> None:
        for child in node.children:
            self.visit(child)

    def _add(self, invocation: Invocation) -> None:
        if self.budget is not None:
            self.budget.command()
        self.invocations.append(invocation)

    def _command(self, node: Node, redirects: list[Redirect], extra_args: list[str]) -> None:
        assignments: list[tuple[str, str]] = []
        words: list[str] = []
        for field, child in _fields(node):
            if child.type == "variable_assignment":
                assignments.append(self._assignment(child))
                continue
            if field == "redirect" or child.type.endswith("redirect"):
                redirects = [*redirects, *self._redirect(child, words)]
                self._visit_redirect(child)
                continue
            if field in ("name", "argument"):
                if is_locale_dollar(child):
                    continue  # `$"text"` split in two: the next word is the text
                if not child.is_named and child.type == "$" and child.next_sibling is not None:
                    self.problems.append('unsupported $"..." quoting')
                words.append(word_of(child))
                if field == "name" and child.text in _RESERVED_BYTES:
                    self.problems.append(PARSE_ERROR)
            self.visit(child)
        argv = (*words, *extra_args)
        self._names(argv)
        self.tainted = self.tainted or taints(argv)
        self.dynamic_arguments = self.dynamic_arguments or not all(map(is_literal, argv))
        invocation = look_through(
            argv,
            tuple(assignments),
            tuple(redirects),
            parse_code=parse_command,
            depth=self.depth,
        )
        self._add(invocation)
        self._builtin_sets(invocation)

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

    def _redirected(self, node: Node) -> None:
        body = node.child_by_field_name("body")
        redirects: list[Redirect] = []
        extra_args: list[str] = []
        for field, child in _fields(node):
            if field == "redirect":
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
            for field, child in _fields(node):
                if field == "argument":
                    extra_args.append(word_of(child))
                elif child.type == "file_redirect":
                    nested.extend(self._redirect(child, extra_args))
            return nested
        if node.type != "file_redirect":
            return []
        op = next((c.type for c in node.children if not c.is_named), "")
        targets = [c for field, c in _fields(node) if field == "destination"]
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
        if _misread_heredoc(node):
            self.problems.append("a heredoc that the parser does not read as bash does")
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
        inner = parse_command(": " + heredoc_as_string(text), self.depth + 1)
        self.invocations.extend(inner.invocations)
        self.problems.extend(inner.problems)

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
        self.sets(variables_set(tuple(words)))
        self.tainted = self.tainted or taints(tuple(words))
        self._add(Invocation(tuple(words), tuple(assignments), persistent=True))

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
            self.sets(arithmetic_assigns(_node_text(node)))
        if assigned is not None:
            self.tainted = True
            if is_dangerous_variable(assigned):
                self.problems.append(f"assigns {assigned}, which changes what programs run")


def _fields(node: Node) -> list[tuple[str | None, Node]]:
    """Each child with its field name, in one pass (`field_name_for_child` walks the children
    from the first each time, which makes a command of many words quadratic)."""
    out: list[tuple[str | None, Node]] = []
    cursor = node.walk()
    if not cursor.goto_first_child():
        return out
    while True:
        child = cursor.node
        if child is not None:
            out.append((cursor.field_name, child))
        if not cursor.goto_next_sibling():
            return out


def _misread_heredoc(node: Node) -> bool:
    """bash reads a heredoc's body from the line after its `<<`; tree-sitter sometimes takes
    that text for more words of the command (a body starting with `\\"'`)."""
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    if start is None or start.text is None:
        return False
    tree_text = node.text or b""
    line_end = tree_text.find(b"\n", start.end_byte - node.start_byte)
    if line_end < 0:
        return False
    boundary = node.start_byte + line_end
    return any(
        c.start_byte >= boundary and c.type not in ("heredoc_body", "heredoc_end")
        for c in node.children
    )


def _node_text(node: Node) -> str:
    return node.text.decode("utf-8", "surrogateescape") if node.text is not None else ""
