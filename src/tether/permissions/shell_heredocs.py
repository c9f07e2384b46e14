"""Heredoc bodies read as bash reads them, not as tree-sitter-bash does.

tree-sitter-bash's scanner (0.25) misreads heredoc bodies: it takes a body whose first line
starts with a backslash (`\\$(curl x)`, an escaped backtick, `\\\\`) or holds a `$` it cannot
pair (`$ (`, `$((`) for more words of the command or for an error, and after a `<<-` tab it
parses `\\$(x)` as a substitution. bash reads a body as text whatever it holds: the lines after
the one holding `<<WORD`, up to the line that is WORD (for `<<-`, after leading tabs), expanded
like a double-quoted string when WORD is not quoted. So the bodies are found in the text as
bash finds them, each replaced by plain text of the same length, and the command parsed again:
the structure around them is tree-sitter's, and each body's own text is judged by
`shell_hidden.heredoc_code` as the string bash expands. Where that does not give a clean tree
with the same bodies, the first reading stands with its problem (an error, a misread heredoc,
or, for a body holding a backslash, `MISREAD`): the command is asked.
"""

from __future__ import annotations

from tree_sitter import Node, Tree

from tether.permissions import shell_budget
from tether.permissions.shell_redirects import misread_heredoc
from tether.permissions.shell_tree import parse_tree

_ROUNDS = 4
"""Parses a repair may take: a heredoc tree-sitter did not see at all (the second of `cat <<A
<<B` after a misread first body) is seen once the bodies before it are plain."""
MISREAD = "a heredoc that the parser does not read as bash does"


class Repair:
    """A tree parsed from the text with its heredoc bodies replaced, and each body's text as
    written, by the byte where the tree's body starts; or the tree as it was, with the problem
    that its bodies could not be read (`problem`)."""

    __slots__ = ("bodies", "problem", "tree")

    def __init__(self, tree: Tree, bodies: dict[int, str], problem: str | None = None) -> None:
        self.tree = tree
        self.bodies = bodies
        self.problem = problem


def repaired(source: bytes, tree: Tree) -> Repair | None:
    """The tree of `source` with every heredoc body read as bash reads it, where it has one:
    tree-sitter's own reading of a body is not trusted (it parses `\\$(` after a `<<-` tab as
    a substitution)."""
    starts = _heredoc_starts(tree.root_node)
    if not starts:
        return None
    text = source
    bodies: list[tuple[int, int, int]] | None = None
    for _ in range(_ROUNDS):
        found = _bodies(text, starts)
        if found is None or found == bodies:
            break
        bodies = found
        blank = bytearray(text)
        for begin, end, filler in bodies:
            for i in range(begin, end):
                if blank[i] != 0x0A:
                    blank[i] = filler
        text = bytes(blank)
        again = parse_tree(text)
        if again is None:
            break
        if not again.root_node.has_error and not _any_misread(again.root_node):
            shown = _shown_bodies(source, again, bodies)
            if shown is not None:
                return Repair(again, shown)
        starts = _heredoc_starts(again.root_node)
    if tree.root_node.has_error or _any_misread(tree.root_node):
        return None  # the walk says so already
    first = starts[0][0].start_byte
    return Repair(tree, {}, MISREAD) if b"\\" in source[first:] else None


def _shown_bodies(
    source: bytes, tree: Tree, bodies: list[tuple[int, int, int]]
) -> dict[int, str] | None:
    """Each body's text as written, by the byte where `tree` shows it starting; None where the
    tree's bodies are not those found. tree-sitter starts a body after its leading empty
    lines, and shows no node for a body of empty lines."""
    shown = sorted(n.start_byte for n in _nodes(tree.root_node, "heredoc_body"))
    found = [(b, e) for b, e, _ in bodies if source[b:e].strip(b"\n")]
    if len(shown) != len(found) or any(
        not (b <= at < e and not source[b:at].strip(b"\n"))
        for at, (b, e) in zip(shown, found, strict=True)
    ):
        return None
    return {
        at: source[b:e].decode("utf-8", "surrogateescape")
        for at, (b, e) in zip(shown, found, strict=True)
    }


def outside_bodies(source: bytes, tree: Tree) -> str:
    """The text of `source` with its heredoc bodies (as `tree` shows them) made plain, for the
    checks of the whole text that bash's reading of a body does not share: a backslash-newline
    there is not inside a word (an unquoted body's text is read again on its own)."""
    if b"<<" not in source:
        return source.decode("utf-8", "surrogateescape")
    text = bytearray(source)
    for node in _nodes(tree.root_node, "heredoc_body"):
        for i in range(node.start_byte, node.end_byte):
            if text[i] != 0x0A:
                text[i] = 0x78
    return bytes(text).decode("utf-8", "surrogateescape")


def _heredoc_starts(root: Node) -> list[tuple[Node, bool]]:
    """Each `heredoc_start` in the tree, in source order, and whether its operator is `<<-`."""
    out: list[tuple[Node, bool]] = []
    for node in _nodes(root, "heredoc_start"):
        before = node.prev_sibling
        out.append((node, before is not None and before.type == "<<-"))
    return out


def _any_misread(root: Node) -> bool:
    return any(misread_heredoc(n) for n in _nodes(root, "heredoc_redirect"))


def _nodes(root: Node, kind: str) -> list[Node]:
    """The nodes of one kind below `root`, in source order (an explicit stack: trees are deep)."""
    out: list[Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        shell_budget.spend(1)
        if node.type == kind:
            out.append(node)
        else:
            stack.extend(reversed(node.children))
    return out


def _bodies(source: bytes, starts: list[tuple[Node, bool]]) -> list[tuple[int, int, int]] | None:
    """(first byte, end, filler byte) of each body bash reads, None where it cannot be told:
    the heredocs of a line have their bodies one after another from the next line on, in the
    order of their `<<`; a start inside a body already found is text, not a heredoc."""
    out: list[tuple[int, int, int]] = []
    position = 0  # where the next line's bodies may start
    pending: list[tuple[bytes, bool]] = []
    line_end = -1
    for node, strip_tabs in starts:
        if node.start_byte < position:
            continue  # tree-sitter's reading of a body's own text
        end_of_line = source.find(b"\n", node.end_byte)
        if end_of_line < 0:
            return None
        if end_of_line != line_end and pending:
            position = _read_bodies(source, line_end + 1, pending, out)
            if position < 0:
                return None
            pending = []
            if node.start_byte < position:
                continue
        if not _line_closes(source[node.end_byte : end_of_line]):
            return None
        pending.append((_delimiter(node.text or b""), strip_tabs))
        line_end = end_of_line
    if pending and _read_bodies(source, line_end + 1, pending, out) < 0:
        return None
    return out


def _read_bodies(
    source: bytes, at: int, pending: list[tuple[bytes, bool]], out: list[tuple[int, int, int]]
) -> int:
    """Reads the bodies of one line's heredocs from `at`; the byte after the last one's
    delimiter line, or -1 where a delimiter never comes (bash reads to the end: not repaired)."""
    for delimiter, strip_tabs in pending:
        begin = at
        while True:
            if at >= len(source):
                return -1
            newline = source.find(b"\n", at)
            stop = len(source) if newline < 0 else newline
            shell_budget.scan(source[at:stop])
            line = source[at:stop]
            if (line.lstrip(b"\t") if strip_tabs else line) == delimiter:
                filler = next(c for c in b"x_q" if c not in delimiter)
                out.append((begin, at, filler))
                at = stop + 1
                break
            at = stop + 1
    return at


def _delimiter(word: bytes) -> bytes:
    """The word that ends a body: the `<<` word with its quotes removed."""
    out = bytearray()
    i = 0
    quote = 0
    while i < len(word):
        c = word[i]
        if quote:
            if c == quote:
                quote = 0
            else:
                out.append(c)
        elif c in b"'\"":
            quote = c
        elif c == 0x5C and i + 1 < len(word):  # backslash
            i += 1
            out.append(word[i])
        else:
            out.append(c)
        i += 1
    return bytes(out)


def _line_closes(rest: bytes) -> bool:
    """Whether the rest of a line after `<<WORD` ends where its newline is: bash reads the
    bodies after the newline that ends the command, so a string, a substitution or a
    continuation going on past it moves them (such text is not repaired)."""
    depth = 0
    quote = 0
    i = 0
    while i < len(rest):
        c = rest[i]
        if quote == 0x27:  # single quote
            quote = 0 if c == 0x27 else quote
        elif c == 0x5C:  # backslash
            i += 1
            if i >= len(rest):
                return False
        elif quote == 0x22:
            quote = 0 if c == 0x22 else quote
        elif c in b"'\"":
            quote = c
        elif c == 0x28:
            depth += 1
        elif c == 0x29:
            depth -= 1
        elif c == 0x60 or c == 0x23:  # a backtick; a comment (`#` may be text: not repaired)
            return False
        i += 1
    return quote == 0 and depth <= 0
