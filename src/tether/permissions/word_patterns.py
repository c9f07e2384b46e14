"""How bash's globbing and brace expansion read the unquoted characters of one word (shell_words'
atoms): where each `[` closes its bracket expression, and whether `{a,b}` or `{1..9}` makes the
word several."""

from __future__ import annotations

Atom = tuple[str, bool]
"""One character of a word and whether it was quoted (shell_words: what is known only at run
time is one `(DYN, True)`)."""


class Brackets:
    """Where each unquoted `[` of a word ends its bracket expression, as bash's globbing reads
    it: after an optional `!` or `^`, a first `]` is a member; the next unquoted `]` closes;
    none before the next `/` (or the end) and the `[` is a plain character. One pass over the
    word makes the tables each answer reads in constant time, so a word of 50,000 `[` costs
    no more than one of 50,000 letters."""

    def __init__(self, atoms: list[Atom]) -> None:
        self.atoms = atoms
        n = len(atoms)
        self.close = [n] * (n + 1)
        """The index of the first unquoted `]` at or after each index."""
        self.slash = [n] * (n + 1)
        self.open = [n] * (n + 1)
        for j in range(n - 1, -1, -1):
            c, quoted = atoms[j]
            self.close[j] = j if c == "]" and not quoted else self.close[j + 1]
            self.slash[j] = j if c == "/" and not quoted else self.slash[j + 1]
            self.open[j] = j if c == "[" and not quoted else self.open[j + 1]
        self.simple = True
        """Whether the last expression found holds no `[` (so stands for one character)."""

    def end(self, start: int) -> int:
        """The index of the `]` closing the expression opened at `start`, or of the last
        character before the next `/` for one holding a `[`; -1 when it is a plain `[`."""
        atoms = self.atoms
        n = len(atoms)
        first = start + 1
        if first < n and atoms[first] in (("!", False), ("^", False)):
            first += 1
        if first < n and atoms[first] == ("]", False):
            first += 1
        close = self.close[min(first, n)]
        if close >= n or self.slash[start] < close:
            return -1
        self.simple = self.open[start + 1] > close
        return close if self.simple else self.slash[start] - 1


def has_brace_expansion(atoms: list[Atom]) -> bool:
    """`{a,b}` or `{1..9}` outside quotes: one word becomes several. One pass: each open `{`
    remembers whether an unquoted `,` came inside it, and `..` anywhere inside counts."""
    opened: list[tuple[int, bool]] = []  # (index of `{`, an unquoted comma seen inside)
    last_dots = -1
    """Where the latest `..` (quoted or not) begins."""
    previous = ""
    for i, (c, quoted) in enumerate(atoms):
        if c == "." and previous == ".":
            last_dots = i - 1
        previous = c
        if quoted:
            continue
        if c == "{":
            opened.append((i, False))
        elif c == "," and opened:
            opened[-1] = (opened[-1][0], True)
        elif c == "}" and opened:
            start, comma = opened.pop()
            if comma or last_dots > start:
                return True
    return False
