"""The walk's hidden-code side: what bash reads again where tree-sitter shows only text (a
`$(` or backtick hidden in a word, single quotes bash takes for plain characters, backticks
nested with backslashes, a heredoc's body), each parsed as code or counted as a problem;
`Walker` (shell_walker) supplies the state and the visiting."""

from __future__ import annotations

from tree_sitter import Node

from tether.permissions.shell_assignments import AssignmentWalker
from tether.permissions.shell_hidden import (
    Quoting,
    backtick_code,
    heredoc_code,
    hidden_opener,
    plain_quoted_text,
    quotes_are_plain,
)
from tether.permissions.shell_redirects import misread_heredoc, node_text

PARSE_ERROR = "the command does not parse cleanly"
_SCANNED_LEAVES = frozenset({"word", "regex", "extglob_pattern", "string_content", "number"})
"""Leaves whose text bash may still expand (not quoted strings, comments, heredoc text)."""
_SPECIAL_NAMES = frozenset("*@#?-$!0_")
"""bash's special parameters, each one character (`$?`, `$$`...)."""


class HiddenCodeWalker(AssignmentWalker):
    """Code bash finds in what the tree shows as text, read as the walk meets it."""

    bodies: dict[int, str]
    quoting: list[Quoting]

    def _parent(self) -> Node | None:
        raise NotImplementedError

    def _enter(self, node: Node) -> None:
        raise NotImplementedError

    def _leave(self) -> None:
        raise NotImplementedError

    def _visit_children(self, node: Node) -> None:
        raise NotImplementedError

    def _leaf(self, node: Node) -> None:
        if node.type == "special_variable_name":
            parent = self._parent()
            joined = parent is None or parent.children[0].end_byte == node.start_byte
            if not joined or node_text(node) not in _SPECIAL_NAMES:
                # `"$ $(cmd)"`: tree-sitter takes ` $` for a name, and the substitution for text
                self.problems.append("a `$` that the parser does not read as bash does")
            return
        if node.type in ("raw_string", "ansi_c_string"):
            if quotes_are_plain(self.quoting[-2]):
                self._plain_quotes(node)
            return
        if node.type not in _SCANNED_LEAVES:
            return
        parent = self._parent()
        quoted = node.type == "string_content" or (parent is not None and parent.type == "string")
        opener = hidden_opener(node_text(node), quoted=quoted)
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
        inner = self.parse(': "' + text + '"', self.depth + 1)
        self._extend(inner.invocations)
        self.problems.extend(inner.problems)

    def _backticks(self, node: Node) -> None:
        """bash reads the text between backticks again once their backslashes are removed,
        so `` \\` `` inside opens a nested substitution that tree-sitter leaves as a word."""
        parent = self._parent()
        code = backtick_code(node, in_double_quotes=parent is not None and parent.type == "string")
        if code is None:
            self.problems.append(PARSE_ERROR)
            return
        inner = self.parse(code, self.depth)
        self._extend(inner.invocations)
        self.problems.extend(inner.problems)

    def _heredoc(self, node: Node) -> None:
        if misread_heredoc(node):
            self.problems.append("a heredoc that the parser does not read as bash does")
        for child in node.children:
            if child.type == "file_redirect":
                self._enter(child)
                self._visit_children(child)
                self._leave()
            else:
                self.visit(child)
        code = heredoc_code(node, self.bodies)
        if code is None:
            return
        inner = self.parse(code, self.depth + 1)
        self._extend(inner.invocations)
        self.problems.extend(inner.problems)
