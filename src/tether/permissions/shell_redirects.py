"""What a redirection opens, and the tree-sitter helpers the walker reads nodes with: each
child with its field, a node's text, whether a heredoc was read as bash reads it."""

from __future__ import annotations

from tree_sitter import Node

from tether.permissions.script import Redirect
from tether.permissions.shell_words import word_of

_DUPLICATIONS = frozenset({">&", "<&", ">&-", "<&-"})
_READ_REDIRECTS = frozenset({"<"})


def redirect_targets(node: Node, extra_args: list[str]) -> list[Redirect]:
    """The file a redirection opens; words tree-sitter puts after its target are really
    arguments of the command (`cat 2>/dev/null .env`), so they go to `extra_args`."""
    if node.type == "heredoc_redirect":
        # tree-sitter hangs what follows `<<EOF` on the line (more arguments, other
        # redirections) under the heredoc node.
        nested: list[Redirect] = []
        for field, child in fields(node):
            if field == "argument":
                extra_args.append(word_of(child))
            elif child.type == "file_redirect":
                nested.extend(redirect_targets(child, extra_args))
        return nested
    if node.type != "file_redirect":
        return []
    op = next((c.type for c in node.children if not c.is_named), "")
    targets = [c for field, c in fields(node) if field == "destination"]
    extra_args.extend(word_of(c) for c in targets[1:])
    if not targets:
        return []
    target = word_of(targets[0])
    if op in _DUPLICATIONS and (targets[0].type == "number" or target == "-"):
        return []
    return [Redirect(op, target, writes=op not in _READ_REDIRECTS)]


def fields(node: Node) -> list[tuple[str | None, Node]]:
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


def misread_heredoc(node: Node) -> bool:
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


def node_text(node: Node) -> str:
    return node.text.decode("utf-8", "surrogateescape") if node.text is not None else ""
