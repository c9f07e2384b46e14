"""Shell words as bash would pass them: quotes removed, escapes applied, unknowns marked.

A word is a plain string in which four control characters stand for what cannot be known
before the command runs. Rule patterns never contain them, so only a `*` in a rule can match
them; path checks treat them as wildcards.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from tree_sitter import Node

from tether.permissions import shell_budget
from tether.permissions.ansi_c_strings import decode_ansi_c
from tether.permissions.shell_budget import CHARACTERS_PER_STEP
from tether.permissions.word_patterns import Atom, Brackets, has_brace_expansion

DYN = "\x00"
"""Text known only at run time: `$VAR`, `$(...)`, `{a,b}` brace expansion..."""
STAR = "\x01"
"""An unquoted `*` glob."""
ONE = "\x02"
"""An unquoted `?` or `[...]` glob: one character."""
HOME = "\x03"
"""An unquoted leading `~` (tilde expansion) or `$HOME`: the home directory. `~name` is the
marker followed by the name (bash_policy looks it up; `~+`, `~-` are the directory stack)."""
HERE = "\x04"
"""A module path entry's leading `$PWD`, `${PWD}` or `$(pwd)` (only there: `value_of` with
`here`): the directory the shell is in, which the judge resolves as it does a relative path
when nothing in the command may change what they say (shell_steady). Unknown everywhere else."""
MARKERS = DYN + STAR + ONE
PATH_STARTS = ("/", ".", "~", HOME)
"""How a word that names a path starts, as the parser gives it: `/`, `.`, the home the shell
expands (`~/x`, `$HOME/x`: HOME) or a `~` it left as written. The tables that pick a program's
path operands test words with it; what the path is (`..`, symlinks, the home) is the path
resolver's (shell_places), as for every other path."""
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

_HERE_ATOM = HERE + "$PWD"
"""The atom of `$PWD` or `$(pwd)` where `value_of` marks them: no character of text is it."""
_HERE_WORDS = re.compile(r"\$PWD|\$\{PWD\}|\$\(\s*pwd\s*\)|`\s*pwd\s*`")
_HERE_KINDS = frozenset({"simple_expansion", "expansion", "command_substitution"})
_MARK_HERE: ContextVar[bool] = ContextVar("_MARK_HERE", default=False)


def word_of(node: Node) -> str:
    """The word `node` stands for (an argument, a command name, a redirect target...). Reading
    it spends a step of the read (shell_budget) per syntax node and per `CHARACTERS_PER_STEP`
    characters."""
    if node.type == "word":
        text = _text(node)
        if _PLAIN_WORD.fullmatch(text) is not None:
            shell_budget.spend(1 + len(text) // CHARACTERS_PER_STEP)
            return text  # what the atoms below would give, at a fraction of the cost
    atoms: list[Atom] = []
    nodes = _collect(node, atoms, quoted=False)
    shell_budget.spend(nodes + len(atoms) // CHARACTERS_PER_STEP)
    return _finish(atoms)


def value_of(node: Node, *, here: bool = False) -> str:
    """The value an assignment (`NAME=VALUE`, `export NAME=VALUE`) gives: a word whose every
    unquoted `:` is followed by a tilde prefix bash expands too (`PYTHONPATH=src:~` holds the
    home), as it does for any variable. With `here`, a `$PWD` or `$(pwd)` starting a part is
    marked `HERE` (a module path's entries: `PYTHONPATH=$PWD/src`)."""
    if node.type == "word" and ":" not in _text(node):
        return word_of(node)
    return _assigned(_atoms(node, here=here))


_ASSIGNMENT_WORD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")


def argument_of(node: Node, *, here: Callable[[str], bool]) -> str:
    """An argument as bash passes it: one that looks like an assignment (`env NAME=VALUE`,
    `make X=~/y`) has its value read as an assignment's is (`value_of`: a tilde prefix after
    the `=` or an unquoted `:` expanded, as bash does outside POSIX mode; with `here(NAME)`,
    a part starting with `$PWD` marked), so a variable `env` sets is the one a leading
    assignment sets; any other as `word_of` reads it."""
    text = _text(node)
    named = _ASSIGNMENT_WORD.match(text)
    if named is None or (node.type == "word" and not any(c in text for c in ":~")):
        return word_of(node)
    atoms = _atoms(node, here=here(named.group(1)))
    prefix = len(named.group(0))
    if atoms[:prefix] != [(c, False) for c in named.group(0)]:
        return _finish(atoms)  # a quoted name or `=`: no assignment to bash
    return named.group(0) + _assigned(atoms[prefix:])


def _atoms(node: Node, *, here: bool) -> list[Atom]:
    atoms: list[Atom] = []
    token = _MARK_HERE.set(here)
    try:
        nodes = _collect(node, atoms, quoted=False)
    finally:
        _MARK_HERE.reset(token)
    shell_budget.spend(nodes + len(atoms) // CHARACTERS_PER_STEP)
    return atoms


def _assigned(atoms: list[Atom]) -> str:
    """The value of an assignment from its atoms: each part between unquoted `:` read as a
    word of its own (a tilde prefix starting one expanded)."""
    if has_brace_expansion(atoms):
        return DYN
    parts: list[list[Atom]] = [[]]
    for atom in atoms:
        if atom == (":", False):
            parts.append([])
        else:
            parts[-1].append(atom)
    return ":".join(_finish(part) for part in parts)


_BOUND: ContextVar[Mapping[str, tuple[Atom, ...]] | None] = ContextVar("_BOUND", default=None)
"""Loop variables that stand for one known word while the walk is inside their loop
(for_values.py): `"$f"` and `"${f}"` read as that word's atoms. Only quoted: unquoted, the
value is split at blanks (a name `a .env` that `*` matches is the words `a` and `.env`)."""


@contextmanager
def bound(name: str, atoms: tuple[Atom, ...]) -> Generator[None]:
    """While reading the words of a loop's body: `$name` is `atoms`."""
    token = _BOUND.set({**(_BOUND.get() or {}), name: atoms})
    try:
        yield
    finally:
        _BOUND.reset(token)


@contextmanager
def unbound() -> Generator[None]:
    """While reading a command of its own (a parse): no variable is bound."""
    token = _BOUND.set({})
    try:
        yield
    finally:
        _BOUND.reset(token)


def word_atoms(node: Node) -> tuple[Atom, ...] | None:
    """The atoms of the word `node` (None when a brace expansion makes it several)."""
    atoms: list[Atom] = []
    nodes = _collect(node, atoms, quoted=False)
    shell_budget.spend(nodes + len(atoms) // CHARACTERS_PER_STEP)
    return None if has_brace_expansion(atoms) else tuple(atoms)


def is_locale_dollar(node: Node) -> bool:
    """The `$` of `$"text"` where tree-sitter splits it from its string (`x$"y"`, or as a word
    of its own before `"y"`): bash reads `$"y"` as the string `"y"`, translated."""
    if node.type != "$" or node.is_named:
        return False  # before `next_sibling`, which walks down from the root
    after = node.next_sibling
    return (
        after is not None
        and after.start_byte == node.end_byte
        and (after.text or b"").startswith(b'"')
    )


def tilde_expanded(path: str) -> str:
    """`path` as a program that expands a leading `~/` itself reads it (conda's channels, cvs's
    `:local:~/r`, words the shell left as written: `-c=~/x`): the home (HOME) there, as for
    a `~` alone (`conda install ~::pkg`)."""
    return HOME + path[1:] if path[:2] == "~/" or path == "~" else path


def is_literal(word: str) -> bool:
    return DYN not in word and STAR not in word and ONE not in word and HERE not in word


def shown(word: str) -> str:
    """The word for matching rules and for messages: `~` back in place, unknowns kept."""
    return word.replace(HOME, "~")


def readable(text: str) -> str:
    """Text for messages: unknown parts as `…`, globs as written."""
    text = text.replace(HOME, "~").replace(DYN, "…").replace(HERE, "$PWD")
    return text.replace(STAR, "*").replace(ONE, "?")


def program_name(word: str) -> str:
    """`/usr/bin/rm` is `rm`; `~/bin/x` is `x`."""
    return word.replace(HOME, "~").rsplit("/", 1)[-1]


def plain(word: str) -> str:
    """The word for regular expressions written by people: unknown parts dropped."""
    return word.replace(HOME, "~").replace(DYN, "").replace(STAR, "*").replace(ONE, "?")


def _collect(node: Node, atoms: list[Atom], *, quoted: bool) -> int:
    """The atoms of `node`, appended; returns how many syntax nodes were read."""
    kind = node.type
    nodes = 1
    if kind in ("concatenation", "command_name"):
        for child in node.children:
            if child.type == "$" and not child.is_named and not is_locale_dollar(child):
                # `"a"=$HOME/x`: the parser ends the word at a lone `$` and starts the next
                # at the name; bash expands them as one.
                atoms.append((DYN, True))
            elif not is_locale_dollar(child):
                nodes += _collect(child, atoms, quoted=quoted)
    elif kind in ("translated_string", "string"):
        # `$"text"` is `"text"` translated by the locale's catalogue: the text itself when
        # there is no translation (tether sets no TEXTDOMAIN).
        for child in node.children if kind == "string" else node.named_children:
            nodes += 1
            if child.type == "string_content":
                atoms.extend((c, True) for c in _unescape_double_quoted(_text(child)))
            elif child.is_named:
                nodes += _collect(child, atoms, quoted=True) - 1
            elif child.type not in ('"', '$"'):
                atoms.extend((c, True) for c in _text(child))
    elif kind == "process_substitution":
        atoms.extend((c, True) for c in PROCESS_SUBSTITUTION_PATH)
    elif kind in _HERE_KINDS and _MARK_HERE.get() and _HERE_WORDS.fullmatch(_text(node)):
        atoms.append((_HERE_ATOM, True))
    elif (
        kind in ("simple_expansion", "expansion")
        and quoted
        and (value := _bound_value(node)) is not None
    ):
        atoms.extend(value)
    elif kind in ("simple_expansion", "expansion") and node.end_byte - node.start_byte <= 7:
        home = _text(node) in ("$HOME", "${HOME}")
        atoms.append((HOME, True) if home else (DYN, True))  # home: see _finish
    elif kind in _UNKNOWN_NODES:
        atoms.append((DYN, True))
    else:
        _collect_text(node, atoms, quoted=quoted)
    return nodes


def _bound_value(node: Node) -> tuple[Atom, ...] | None:
    names = _BOUND.get()
    if not names:
        return None
    text = _text(node)
    name = text[2:-1] if text.startswith("${") and text.endswith("}") else text[1:]
    return names.get(name)


def _collect_text(node: Node, atoms: list[Atom], *, quoted: bool) -> None:
    kind = node.type
    text = _text(node)
    if kind in ("word", "number", "variable_name", "file_descriptor", "special_variable_name"):
        atoms.extend(_raw_atoms(text) if not quoted else [(c, True) for c in text])
    elif kind == "raw_string":
        atoms.extend((c, True) for c in text[1:-1])
    elif kind == "ansi_c_string":
        atoms.extend((c, True) for c in decode_ansi_c(text[2:-1]))
    elif node.is_named:
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
    if has_brace_expansion(atoms):
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
    brackets = Brackets(atoms) if ("[", False) in atoms else None
    while i < len(atoms):
        c, quoted = atoms[i]
        if c == _HERE_ATOM and _starts_entry(atoms, i):
            out.append(HERE)  # `"$PWD/src:$PWD"`: a module path's entry after a quoted `:`
        elif (c == HOME and quoted) or c in (_HERE_ATOM, HERE):
            out.append(DYN)  # `$HOME` that does not start a path: some text
        elif quoted:
            out.append(c)
        elif c == "*":
            out.append(STAR)
        elif c == "?":
            out.append(ONE)
        elif c == "[" and brackets is not None and (end := brackets.end(i)) > 0:
            # One character, or, for a class holding `[` (`[[:alpha:]]`), whose end depends
            # on what those open: any text up to the next `/`.
            out.append(ONE if brackets.simple else STAR)
            i = end
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _starts_entry(atoms: list[Atom], i: int) -> bool:
    """Whether atom `i` starts an entry of a list of paths and a path of its own (a `:`, or
    the start, before it; a `/`, a `:` or the end after it)."""
    before = i == 0 or atoms[i - 1][0] == ":"
    return before and (i + 1 == len(atoms) or atoms[i + 1][0] in "/:")


_TILDE_PREFIX = re.compile(r"[A-Za-z0-9._][A-Za-z0-9._-]*\$?|[+-][0-9]*|")
"""What may follow `~` up to the first `/`: a login name, `+`, `-`, `+N`, `-N`, `N`, nothing."""
