"""Shell words as bash would pass them: quotes removed, escapes applied, unknowns marked.

A word is a plain string in which four control characters stand for what cannot be known
before the command runs. Rule patterns never contain them, so only a `*` in a rule can match
them; path checks treat them as wildcards.
"""

from __future__ import annotations

import re

from tree_sitter import Node

DYN = "\x00"
"""Text known only at run time: `$VAR`, `$(...)`, `{a,b}` brace expansion..."""
STAR = "\x01"
"""An unquoted `*` glob."""
ONE = "\x02"
"""An unquoted `?` or `[...]` glob: one character."""
HOME = "\x03"
"""An unquoted leading `~` (tilde expansion) or `$HOME`: the home directory. `~name` is the
marker followed by the name (bash_policy looks it up; `~+`, `~-` are the directory stack)."""
MARKERS = DYN + STAR + ONE
PROCESS_SUBSTITUTION_PATH = "/dev/fd/63"
"""What `<(cmd)` becomes as an argument: a pipe, not a file on disk."""

_UNKNOWN_NODES = frozenset(
    {
        "simple_expansion",
        "expansion",
        "command_substitution",
        "arithmetic_expansion",
        "brace_expression",
        "extglob_pattern",
        "array",
    }
)

_PLAIN_WORD = re.compile(r"[^\\*?\[{~]*")
"""An unquoted word bash passes as written: no escape, glob, brace or tilde."""

# One character of a word: (character, quoted). DYN atoms are (DYN, True).
Atom = tuple[str, bool]


def word_of(node: Node) -> str:
    """The word `node` stands for (an argument, a command name, a redirect target...)."""
    if node.type == "word":
        text = _text(node)
        if _PLAIN_WORD.fullmatch(text) is not None:
            return text  # what the atoms below would give, at a fraction of the cost
    atoms: list[Atom] = []
    _collect(node, atoms, quoted=False)
    return _finish(atoms)


def is_locale_dollar(node: Node) -> bool:
    """The `$` of `$"text"` where tree-sitter splits it from its string (`x$"y"`, or as a word
    of its own before `"y"`): bash reads `$"y"` as the string `"y"`, translated."""
    after = node.next_sibling
    return (
        node.type == "$"
        and not node.is_named
        and after is not None
        and after.start_byte == node.end_byte
        and (after.text or b"").startswith(b'"')
    )


def is_literal(word: str) -> bool:
    return DYN not in word and STAR not in word and ONE not in word


def shown(word: str) -> str:
    """The word for matching rules and for messages: `~` back in place, unknowns kept."""
    return word.replace(HOME, "~")


def readable(text: str) -> str:
    """Text for messages: unknown parts as `…`, globs as written."""
    return text.replace(HOME, "~").replace(DYN, "…").replace(STAR, "*").replace(ONE, "?")


def program_name(word: str) -> str:
    """`/usr/bin/rm` is `rm`; `~/bin/x` is `x`."""
    return word.replace(HOME, "~").rsplit("/", 1)[-1]


def plain(word: str) -> str:
    """The word for regular expressions written by people: unknown parts dropped."""
    return word.replace(HOME, "~").replace(DYN, "").replace(STAR, "*").replace(ONE, "?")


def _collect(node: Node, atoms: list[Atom], *, quoted: bool) -> None:
    kind = node.type
    text = _text(node)
    if kind in ("word", "number", "variable_name", "file_descriptor", "special_variable_name"):
        atoms.extend(_raw_atoms(text) if not quoted else [(c, True) for c in text])
    elif kind == "raw_string":
        atoms.extend((c, True) for c in text[1:-1])
    elif kind == "ansi_c_string":
        atoms.extend((c, True) for c in decode_ansi_c(text[2:-1]))
    elif kind == "translated_string":
        # `$"text"` is `"text"` translated by the locale's catalogue: the text itself when
        # there is no translation (tether sets no TEXTDOMAIN).
        for child in node.named_children:
            _collect(child, atoms, quoted=True)
    elif kind == "string":
        for child in node.children:
            if child.type == "string_content":
                atoms.extend((c, True) for c in _unescape_double_quoted(_text(child)))
            elif child.is_named:
                _collect(child, atoms, quoted=True)
            elif child.type not in ('"', '$"'):
                atoms.extend((c, True) for c in _text(child))
    elif kind in ("concatenation", "command_name"):
        for child in node.children:
            if not is_locale_dollar(child):
                _collect(child, atoms, quoted=quoted)
    elif kind == "process_substitution":
        atoms.extend((c, True) for c in PROCESS_SUBSTITUTION_PATH)
    elif kind in ("simple_expansion", "expansion") and text in ("$HOME", "${HOME}"):
        atoms.append((HOME, True))  # the home directory, when it starts a path (_finish)
    elif kind in _UNKNOWN_NODES or node.is_named:
        atoms.append((DYN, True))
    elif "`" in text or "$(" in text:
        # A substitution tree-sitter leaves as a bare token (`cu``rl`: an empty one): its
        # output, whatever it is, is part of the word.
        atoms.append((DYN, True))
    else:
        atoms.extend(_raw_atoms(text) if not quoted else [(c, True) for c in text])


def _text(node: Node) -> str:
    raw = node.text
    return raw.decode("utf-8", "surrogateescape") if raw is not None else ""


def _raw_atoms(text: str) -> list[Atom]:
    """Unquoted source text: a backslash quotes the next character; backslash-newline is
    nothing."""
    atoms: list[Atom] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":
                atoms.append((text[i + 1], True))
            i += 2
            continue
        atoms.append((c, False))
        i += 1
    return atoms


def _unescape_double_quoted(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and text[i + 1] in '$`"\\\n':
            if text[i + 1] != "\n":
                out.append(text[i + 1])
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _finish(atoms: list[Atom]) -> str:
    if _has_brace_expansion(atoms):
        return DYN
    out: list[str] = []
    i = 0
    if atoms and atoms[0] == (HOME, True) and (len(atoms) == 1 or atoms[1][0] == "/"):
        out.append(HOME)
        i = 1
    elif atoms and atoms[0] == ("~", False):
        i = 1
        while i < len(atoms) and atoms[i] != ("/", False):
            i += 1
        name = "".join(c for c, _ in atoms[1:i])
        if all(not quoted for _, quoted in atoms[1:i]) and _TILDE_PREFIX.fullmatch(name):
            # ~, ~user, ~+, ~-: a home or a directory stack entry, named after the marker.
            out.append(HOME + name)
        else:
            out.append(DYN)  # bash leaves a quoted prefix as written; unknown here
    while i < len(atoms):
        c, quoted = atoms[i]
        if c == HOME and quoted:
            out.append(DYN)  # `$HOME` that does not start a path: some text
        elif quoted:
            out.append(c)
        elif c == "*":
            out.append(STAR)
        elif c == "?":
            out.append(ONE)
        elif c == "[" and (end := _class_end(atoms, i)) > 0:
            out.append(ONE)
            i = end
        else:
            out.append(c)
        i += 1
    return "".join(out)


_TILDE_PREFIX = re.compile(r"[A-Za-z0-9._][A-Za-z0-9._-]*\$?|[+-][0-9]*|")
"""What may follow `~` up to the first `/`: a login name, `+`, `-`, `+N`, `-N`, `N`, nothing."""


def _class_end(atoms: list[Atom], start: int) -> int:
    for j in range(start + 2, len(atoms)):
        c, quoted = atoms[j]
        if c == "/" and not quoted:
            return -1
        if c == "]" and not quoted:
            return j
    return -1


def _has_brace_expansion(atoms: list[Atom]) -> bool:
    """`{a,b}` or `{1..9}` outside quotes: one word becomes several."""
    opened: list[int] = []
    for i, (c, quoted) in enumerate(atoms):
        if quoted:
            continue
        if c == "{":
            opened.append(i)
        elif c == "}" and opened:
            start = opened.pop()
            inner = atoms[start + 1 : i]
            if any(ch == "," and not q for ch, q in inner):
                return True
            body = "".join(ch for ch, _ in inner)
            if ".." in body:
                return True
    return False


_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def decode_ansi_c(body: str) -> str:
    """The text of `$'...'`: backslash escapes as bash reads them."""
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        i += 2
        if e in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[e])
        elif e in "01234567":
            digits = e
            while i < n and len(digits) < 3 and body[i] in "01234567":
                digits += body[i]
                i += 1
            out.append(chr(int(digits, 8) & 0xFF))
        elif e in "xuU":
            limit = {"x": 2, "u": 4, "U": 8}[e]
            digits = ""
            while i < n and len(digits) < limit and body[i] in "0123456789abcdefABCDEF":
                digits += body[i]
                i += 1
            out.append(chr(min(int(digits, 16), 0x10FFFF)) if digits else "\\" + e)
        elif e == "c" and i < n:
            out.append(chr(ord(body[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + e)
    return "".join(out)
