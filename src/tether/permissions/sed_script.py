"""What a sed script does besides printing: files its commands read (`r`, `R`) and write (`w`,
`W`, the `w` flag of `s`), and commands it runs (`e`, the `e` flag of `s`).

GNU sed's grammar, read the way sed reads it: commands end at `;` or a newline, but the file
name of `r`/`w` and the command of `e` run to the end of the line (`w out; p` writes to the
file `out; p`); `a`/`i`/`c` text runs to the end of the line too. A script this cannot read is
reported as such, and the command is asked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_SIMPLE = frozenset("=dDgGhHnNpPxzF")
_NUMBERED = frozenset("lLqQ")
_LABELLED = frozenset("btT:")
_TEXT = frozenset("aic")
_FILE_READS = frozenset("rR")
_FILE_WRITES = frozenset("wW")
_S_FLAGS = frozenset("gpiImM0123456789")


@dataclass
class SedEffects:
    reads: list[str] = field(default_factory=list[str])
    writes: list[str] = field(default_factory=list[str])
    runs: list[str] = field(default_factory=list[str])
    """Shell commands given to `e COMMAND`."""
    unseen: list[str] = field(default_factory=list[str])
    """Why the script does something that cannot be judged (runs its own output, cannot be
    read)."""


class _Unreadable(Exception):
    pass


def sed_effects(script: str) -> SedEffects:
    """The files and commands a sed script touches besides its input and standard output."""
    effects = SedEffects()
    try:
        _Reader(script, effects).commands()
    except _Unreadable as problem:
        effects.unseen.append(f"cannot read the sed script: {problem}")
    return effects


@dataclass
class _Reader:
    text: str
    effects: SedEffects
    i: int = 0

    def peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def take(self) -> str:
        c = self.peek()
        self.i += 1
        return c

    def skip_blanks(self) -> None:
        while self.peek() in (" ", "\t"):
            self.i += 1

    def rest_of_line(self) -> str:
        end = self.text.find("\n", self.i)
        end = len(self.text) if end < 0 else end
        found, self.i = self.text[self.i : end], end
        return found

    def commands(self) -> None:
        while self.i < len(self.text):
            c = self.peek()
            if c in " \t\n;}":
                self.i += 1
                continue
            if c == "#":
                self.rest_of_line()
                continue
            self.address()
            self.skip_blanks()
            if self.peek() == ",":
                self.i += 1
                self.skip_blanks()
                self.address(second=True)
            self.skip_blanks()
            while self.peek() in ("!", " ", "\t"):
                self.i += 1
            self.command(self.take())

    def address(self, *, second: bool = False) -> None:
        c = self.peek()
        if c == "$":
            self.i += 1
        elif c.isdigit() or (second and c in "+~"):
            self.i += 1
            while self.peek().isdigit() or self.peek() == "~":
                self.i += 1
        elif c in ("/", "\\"):
            self.i += 1
            delimiter = self.take() if c == "\\" else "/"
            if delimiter in ("", "\n", "\\"):
                raise _Unreadable("a bad regular expression delimiter")
            self.regex(delimiter)
            while self.peek() in ("I", "M"):
                self.i += 1

    def regex(self, delimiter: str) -> str:
        """Up to the unescaped delimiter; inside a bracket expression it is a plain character."""
        start = self.i
        while True:
            c = self.take()
            if c == "":
                raise _Unreadable("an unterminated regular expression")
            if c == "\\":
                if self.take() == "":
                    raise _Unreadable("a trailing backslash")
            elif c == "[":
                self.bracket()
            elif c == delimiter:
                return self.text[start : self.i - 1]

    def bracket(self) -> None:
        if self.peek() == "^":
            self.i += 1
        if self.peek() == "]":
            self.i += 1
        while True:
            c = self.take()
            if c == "":
                raise _Unreadable("an unterminated bracket expression")
            if c == "[" and self.peek() in (":", ".", "="):
                close = self.text.find(self.peek() + "]", self.i + 1)
                if close < 0:
                    raise _Unreadable("an unterminated character class")
                self.i = close + 2
            elif c == "]":
                return

    def replacement(self, delimiter: str) -> None:
        while True:
            c = self.take()
            if c == "":
                raise _Unreadable("an unterminated replacement")
            if c == "\\":
                self.take()
            elif c == delimiter:
                return

    def command(self, c: str) -> None:
        if c == "{" or c in _SIMPLE:
            return
        if c in _NUMBERED:
            self.skip_blanks()
            while self.peek().isdigit():
                self.i += 1
        elif c in _LABELLED:
            while self.peek() not in ("", "\n", ";"):
                self.i += 1
        elif c in _TEXT:
            self.text_argument()
        elif c in _FILE_READS or c in _FILE_WRITES:
            self.skip_blanks()
            name = self.rest_of_line()
            if not name:
                raise _Unreadable(f"`{c}` without a file name")
            (self.effects.reads if c in _FILE_READS else self.effects.writes).append(name)
        elif c == "e":
            self.skip_blanks()
            command = self.rest_of_line()
            if command:
                self.effects.runs.append(command)
            else:
                self.effects.unseen.append("sed `e` runs the pattern space as a command")
        elif c == "s":
            self.substitute()
        elif c == "y":
            delimiter = self.take()
            if delimiter in ("", "\n", "\\"):
                raise _Unreadable("a bad `y` delimiter")
            self.replacement(delimiter)
            self.replacement(delimiter)
        elif c == "v":
            while self.peek() not in ("", "\n", ";"):
                self.i += 1
        else:
            raise _Unreadable(f"unknown command `{c}`")

    def substitute(self) -> None:
        delimiter = self.take()
        if delimiter in ("", "\n", "\\"):
            raise _Unreadable("a bad `s` delimiter")
        self.regex(delimiter)
        self.replacement(delimiter)
        while True:
            c = self.peek()
            if c in _S_FLAGS:
                self.i += 1
            elif c == "e":
                self.i += 1
                self.effects.unseen.append("the `e` flag of sed `s` runs the result as a command")
            elif c == "w":
                self.i += 1
                self.command("w")
                return
            else:
                return

    def text_argument(self) -> None:
        """`a text`, `a\\` then lines: to the end of the line, a trailing backslash going on."""
        while True:
            c = self.take()
            if c in ("", "\n"):
                return
            if c == "\\":
                self.take()
