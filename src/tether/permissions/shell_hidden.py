"""What bash would expand that tree-sitter's tree does not show.

tree-sitter-bash leaves some text as a plain word where bash still expands it: the operand of
`${x#...}`, `${x:=...}`, escaped backticks nested in backticks, text after a control character,
single quotes where bash reads them as plain characters. These helpers find such text (so that
the command is judged as hiding code) and turn the bodies bash re-reads (backticks, unquoted
heredocs, such single-quoted text) into text that can be parsed again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from tree_sitter import Node

from tether.permissions import shell_budget
from tether.permissions.ansi_c_strings import decode_ansi_c
from tether.permissions.shell_budget import CHARACTERS_PER_STEP

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\udc80-\udc9f]")
"""C0 controls but tab and newline, DEL, and the C1 controls (`\\x85`, `\\x9b`, also as the raw
bytes an invalid UTF-8 text keeps), which a terminal may act on, showing the command as it is
not."""
_OPENERS_UNQUOTED = {"$": "([{", "<": "(", ">": "("}
_OPENERS_QUOTED = {"$": "([{"}


def control_character(command: str) -> str | None:
    """The first control character other than tab and newline, as written in a message.
    bash splits words on space, tab and newline only, and treats some bytes (\\x01, \\x7f)
    specially inside; tree-sitter's view of such text cannot be trusted."""
    found = _CONTROL.search(command)
    return None if found is None else repr(found.group())[1:-1]


_CONTINUATION = re.compile(r"(?<![\\])(?:\\\\)*\\\n")


def joins_words(command: str) -> bool:
    """A backslash-newline between two non-blank characters joins them into one word for bash
    (`.e`, backslash, newline, `nv` is `.env`), where tree-sitter sees two words."""
    for found in _CONTINUATION.finditer(command):
        backslash = found.end() - 2
        before = command[backslash - 1] if backslash else " "
        after = command[found.end()] if found.end() < len(command) else " "
        if not before.isspace() and not after.isspace():
            return True
    return False


def hidden_opener(text: str, *, quoted: bool) -> str | None:
    """The first substitution opener (`$(`, `${`, `$[`, a backtick, `<(`, `>(`) in the source
    text of a word that no backslash quotes: bash expands it even where tree-sitter shows only
    a word. Inside double quotes (`quoted`), `<(` and `>(` are plain text."""
    shell_budget.scan(text)
    openers = _OPENERS_QUOTED if quoted else _OPENERS_UNQUOTED
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "`":
            return c
        follows = openers.get(c)
        if follows is not None and i + 1 < n and text[i + 1] in follows:
            return text[i : i + 2]
        i += 1
    return None


def backtick_body(text: str, *, in_double_quotes: bool) -> str:
    """The command bash runs for `` `text` ``: a backslash before `$`, a backtick or a
    backslash (and `"` inside double quotes) is removed, so `` \\` `` opens a nested
    substitution."""
    shell_budget.scan(text)
    special = '$`\\"' if in_double_quotes else "$`\\"
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in special:
            out.append(text[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def backtick_code(node: Node, *, in_double_quotes: bool) -> str | None:
    """The code of a backtick substitution, read again as bash reads it; None when the tree
    does not close it."""
    first, last = node.children[0], node.children[-1]
    if last.type != "`" or last.start_byte < first.end_byte or node.text is None:
        return None
    # The opening token may hold the blank before it (`"$(a) `b`"`).
    raw = node.text[first.end_byte - node.start_byte : last.start_byte - node.start_byte]
    text = raw.decode("utf-8", "surrogateescape")
    return backtick_body(text, in_double_quotes=in_double_quotes)


def heredoc_code(node: Node, written: Mapping[int, str]) -> str | None:
    """What an unquoted heredoc's body runs, as a command to parse (its body is expanded like
    a double-quoted string; tree-sitter does not always parse it: backticks); None when it
    can run nothing. `written` holds the text of bodies the tree was parsed without
    (shell_heredocs.py), by the byte where each starts."""
    start = next((c for c in node.children if c.type == "heredoc_start"), None)
    body = next((c for c in node.children if c.type == "heredoc_body"), None)
    quoted = start is None or any(q in _text(start) for q in "'\"\\")
    text = "" if body is None else written.get(body.start_byte) or _text(body)
    if quoted or not any(s in text for s in ("`", "$(", "${", "$[")):
        return None
    return ": " + heredoc_as_string(text)


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "surrogateescape")


def heredoc_as_string(body: str) -> str:
    """The body of an unquoted heredoc as a double-quoted shell string with the same
    expansions: in a heredoc a backslash quotes only `$`, a backtick and a backslash, a
    backslash-newline is removed as the body is read (it joins `$(cu` and `rl)`), and `"` is
    plain text."""
    shell_budget.scan(body)
    out: list[str] = ['"']
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c == "\\":
            if i + 1 < n and body[i + 1] == "\n":
                i += 2  # a line continuation: bash removes it as it reads the body
                continue
            if i + 1 < n and body[i + 1] in "$`\\":
                out.append(body[i : i + 2])
                i += 2
                continue
            out.append("\\\\")
        elif c == '"':
            out.append('\\"')
        elif body.startswith("$(", i):
            # A command substitution is a command of its own: its quotes are quotes
            # (`$(s"en"tinel)` runs sentinel), copied as written to its closing `)`.
            end = _substitution_end(body, i)
            out.append(_joined(body[i:end]))
            i = end
            continue
        else:
            out.append(c)
        i += 1
    out.append('"')
    return "".join(out)


def _joined(text: str) -> str:
    """`text` with its line continuations removed, as bash removes them reading a body."""
    out: list[str] = []
    i = 0
    while i < len(text):
        pair = text[i : i + 2]
        if pair == "\\\n":
            i += 2
            continue
        out.append(pair if pair[:1] == "\\" else text[i])
        i += len(pair) if pair[:1] == "\\" else 1
    return "".join(out)


def _substitution_end(text: str, start: int) -> int:
    """Where the `$(...)` at `start` ends (after its `)`), quotes and nested substitutions
    skipped as bash skips them; the end of `text` when it does not close (bash fails to
    parse it: so does the string made of it)."""
    depth = 0
    i = start + 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            close = text.find("'", i + 1)
            i = n if close < 0 else close + 1
            continue
        if c == '"':
            i = _double_quoted_end(text, i)
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def _double_quoted_end(text: str, start: int) -> int:
    """Where the double-quoted string at `start` ends (after its closing `"`)."""
    i = start + 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif text.startswith("$(", i):
            i = _substitution_end(text, i)
        else:
            i += 1
    return n


_PLAIN_QUOTE_OPERATORS = frozenset({"-", ":-", "=", ":=", "+", ":+"})
"""Operators whose operand, inside double quotes or an unquoted heredoc, takes `'` as a plain
character (bash 5: `"${x:-'$(cmd)'}"` runs cmd and prints the quotes). The pattern operators
(`#`, `%`, `/`, `^`, `,`) and `?` do honour the quotes there."""
_ARITHMETIC = frozenset({"arithmetic_expansion", "subscript", "c_style_for_statement"})
"""Arithmetic reads `'` as a plain character, so `$(( '$(cmd)' ))`, `${a['$(cmd)']}` and
`${x:0:'$(cmd)'}` run cmd (and then fail on the quotes)."""
_SHELL_LEVEL = frozenset(
    {"command_substitution", "process_substitution", "command", "program", "variable_assignment"}
    | {"redirected_statement", "list", "pipeline", "test_command", "declaration_command"}
)
"""Where a quote is back to being a quote, whatever surrounds the construct."""


Quoting = tuple[bool, bool]
"""What the nodes above a `'...'` make of its quotes, as `quotes_are_plain` reads them from
the nearest up: (plain?, plain? once a `${x:-...}` operand has been passed)."""
OUTSIDE: Quoting = (False, False)
"""Above the root: the quotes are quotes."""


def quoting_below(above: Quoting, node: Node) -> Quoting:
    """The quoting below `node`, given the quoting `above` it: one step for each node the
    walk enters, so that every quote is judged in constant time (walking up from each one is
    quadratic in a deep tree: `[[ a'...'&& b'...'&& ...` nests each `&&` one level deeper)."""
    kind = node.type
    if kind in _SHELL_LEVEL:
        return (False, False)  # a quote is back to being a quote, whatever surrounds it
    if kind in _ARITHMETIC or (
        kind == "compound_statement" and node.child_count and node.children[0].type == "(("
    ):
        return (True, True)
    if kind == "expansion":
        operator = expansion_operator(node)
        if operator == ":":
            return (True, True)  # a substring offset or length: arithmetic
        if operator not in _PLAIN_QUOTE_OPERATORS:
            return (False, False)
        return (above[1], above[1])  # in the operand, whatever is above
    if kind in ("string", "heredoc_body"):
        return (False, True)
    return above


def quotes_are_plain(above: Quoting) -> bool:
    """Whether bash reads the quotes of a `'...'` or `$'...'` as plain characters, so that
    the substitutions inside it run, given the quoting of the nodes above it
    (`quoting_below`, from the root down). When unsure (a nested operand bash may or may not
    treat so), the answer is yes: the text is then only read again."""
    return above[0]


def expansion_operator(node: Node) -> str | None:
    """The operator of `${name OP word}`: the first token after the name."""
    named = False
    shell_budget.spend(1 + node.child_count // CHARACTERS_PER_STEP)
    for child in node.children:
        if child.is_named:
            named = True
        elif named and child.type != "}":
            return child.type
    return None


def plain_quoted_text(node: Node) -> str | None:
    """The text of a `'...'` or `$'...'` whose quotes are plain characters, as the inside of a
    double-quoted string that bash expands the same way; None when it holds a `"` (bash then
    pairs the quotes differently from the tree)."""
    raw = node.text.decode("utf-8", "surrogateescape") if node.text is not None else ""
    shell_budget.scan(raw)
    if node.type == "ansi_c_string":
        # bash decodes `$'...'` to `'...'` first, then expands the result.
        raw = "'" + decode_ansi_c(raw[2:-1]) + "'"
    return None if '"' in raw else raw
