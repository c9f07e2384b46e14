"""Variables a command sets without an assignment word, and arithmetic that assigns.

`printf -v PATH %s .`, `read PATH`, `for PATH in .`, `getopts x PATH`, `local PATH`, `unset
PATH`, `exec {PATH}>f`, `(( PATH=0 ))` all change `PATH` as surely as `PATH=.` does, and the
next `ls` then runs `./ls` (each checked with bash 5.2). The walker judges every name found here
like an assignment to it: a dangerous variable (commands.py) is something the parser cannot
vouch for.
"""

from __future__ import annotations

import re
from functools import lru_cache

from tether.permissions import shell_budget
from tether.permissions.dangerous_variables import is_dangerous_variable
from tether.permissions.shell_words import is_literal, program_name

ARITHMETIC_ON_ASSIGNMENT = frozenset({"OPTIND", "RANDOM", "SRANDOM", "HISTCMD"})
"""Special variables whose assigned value bash evaluates as arithmetic (`OPTIND='a[$(cmd)]'`
runs cmd; checked with bash 5.2)."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNING_OPERATOR = re.compile(r"\+\+|--|(?:\*\*|<<|>>|[-+*/%&^|])?=(?!=)")
"""What makes the name before it assigned: `x=`, `x+=`, `x<<=`, `x++`, `x--` (not `==`, `<=`)."""
_FD_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}(?=[<>])")
"""`{NAME}>file`, `{NAME}<&-`: bash puts the file descriptor's number in NAME."""

# Option letters that take a value, per builtin; the letters whose value is a variable name.
_READ_VALUED = "adinNptu"
_MAPFILE_VALUED = "dnOsuCc"
_WAIT_VALUED = "p"


def arithmetic_assigns(text: str) -> list[str]:
    """The dangerous variables that arithmetic `text` assigns (`PATH=0`, `HOME++`, `--PATH`,
    `PATH[i]+=1`)."""
    if "=" not in text and "++" not in text and "--" not in text:
        return []
    shell_budget.scan(text)  # here, not in the cached search: the same text, the same steps
    return list(_assigned(text))


@lru_cache(maxsize=4096)
def _assigned(text: str) -> tuple[str, ...]:
    """One pass: each name (a maximal run of name characters) that is a dangerous variable is
    looked at where it stands, the blanks and the `[...]` subscript around it skipped, so no
    text is read more than twice whatever its shape (a regular expression searching for
    `NAME [...] =` from every position read a 90,000-letter name 90,000 times)."""
    found: list[str] = []
    closes = _NextClose(text)
    for match in _NAME.finditer(text):
        name = match.group()
        if name in found or not is_dangerous_variable(name):
            continue
        after = _skip_blanks(text, match.end())
        if after < len(text) and text[after] == "[":
            close = closes.at(after)
            after = _skip_blanks(text, close + 1) if close >= 0 else len(text)
        if _ASSIGNING_OPERATOR.match(text, after) or _increments_before(text, match.start()):
            found.append(name)
    return tuple(found)


def _skip_blanks(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _increments_before(text: str, i: int) -> bool:
    """`++NAME`, `-- NAME`."""
    while i > 0 and text[i - 1].isspace():
        i -= 1
    return i >= 2 and text[i - 2 : i] in ("++", "--")


class _NextClose:
    """The first `]` at or after an index, for indexes asked in increasing order: what one
    search found answers every later index up to it, so the text is searched once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.asked = -1
        self.found = -1

    def at(self, i: int) -> int:
        if not (self.asked <= i <= self.found):
            self.asked = i
            self.found = self.text.find("]", i)
            if self.found < 0:
                self.found = len(self.text)  # none: every later index gets none at once
        return self.found if self.found < len(self.text) else -1


def fd_variables(command: str) -> list[str]:
    """Variables that `{NAME}>` redirections in the command's text assign (read from the
    text: tree-sitter takes `{NAME}` for a word)."""
    return list(dict.fromkeys(_FD_VARIABLE.findall(command)))


def variables_set(argv: tuple[str, ...]) -> list[str]:
    """The variables a builtin sets from its arguments (not assignment words): names as
    written, possibly not literal (then the name is unknown)."""
    if not argv or not is_literal(argv[0]):
        return []
    name = program_name(argv[0])
    args = argv[1:]
    if name == "printf":
        return _option_values(args, "v", "v")
    if name == "read":
        return _option_values(args, _READ_VALUED, "a") + _positionals(args, _READ_VALUED)
    if name in ("mapfile", "readarray"):
        return _positionals(args, _MAPFILE_VALUED)
    if name == "getopts":
        return list(args[1:2])
    if name == "wait":
        return _option_values(args, _WAIT_VALUED, "p")
    if name == "unset":
        # `unset -f NAME` removes a function, not a variable.
        if any(a.startswith("-") and "f" in a for a in args):
            return []
        return [a for a in args if not a.startswith("-")]
    if name in ("declare", "typeset", "local", "export", "readonly"):
        return _declared(name, args)
    return []


def _declared(name: str, args: tuple[str, ...]) -> list[str]:
    """Names a declaration changes without giving them a value (those with `=` are assignment
    words, judged apart): `local PATH` empties it in the function, `declare` inside a function
    is `local`, `export -n` takes it out of the environment, `export -f f` puts the function
    in the environment (`BASH_FUNC_f%%`), `-n` makes it a reference whose value then names
    another variable."""
    letters = "".join(a[1:] for a in args if a[:1] in "-+" and len(a) > 1)
    names = [a for a in args if a[:1] not in "-+" and "=" not in a]
    # A word with `=` that the walker did not take for an assignment (a quoted one: `export
    # "GIT_DIR=x"`) is one all the same: bash assigns it after quote removal.
    valued = [m.group(1) for a in args if (m := _QUOTED_ASSIGNMENT.match(a))]
    if "f" in letters or "F" in letters:
        functions = [f"BASH_FUNC_{n}%%" for n in names]
        return functions if name == "export" and "f" in letters else []
    if valued:
        return valued + _declared(name, tuple(a for a in args if "=" not in a or a[:1] in "-+"))
    if name in ("export", "readonly") and "n" not in letters:
        return []
    if name in ("declare", "typeset") and letters and set(letters) <= set("p"):
        return []
    return names


_QUOTED_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[.*?\])?\+?=", re.DOTALL)


def compound_assignments(words: tuple[str, ...]) -> list[str]:
    """The compound assignments a declaration builtin reads again from its quoted words
    (`declare -a 'a=($(cmd))'`, `local 'b+=([k]=$(cmd))'`): bash parses such a word's list as
    it parses `a=(...)` in a command line, so its substitutions run (checked with bash 5.2)."""
    if not words or not is_literal(words[0]) or program_name(words[0]) not in _DECLARATIONS:
        return []
    found: list[str] = []
    for word in words[1:]:
        match = _QUOTED_ASSIGNMENT.match(word)
        value = word[match.end() :] if match is not None else ""
        if not is_literal(word) and value.startswith("("):
            # `declare -a "a=($X)"`: the list is read again once X is expanded.
            found.append(UNKNOWN_LIST)
        elif value.startswith("(") and value.endswith(")"):
            found.append(word)
    return found


UNKNOWN_LIST = ""
"""In `compound_assignments`: a list that is only known at run time."""


_DECLARATIONS = frozenset({"declare", "typeset", "local", "export", "readonly"})


def _option_values(args: tuple[str, ...], valued: str, wanted: str) -> list[str]:
    """Values of the options in `wanted` (`-v NAME`, `-vNAME`, `-rvNAME`), getopt-style."""
    out: list[str] = []
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--" or not word.startswith("-") or word == "-":
            break
        for j in range(1, len(word)):
            letter = word[j]
            if letter not in valued:
                continue
            value = (
                word[j + 1 :] if j + 1 < len(word) else (args[i + 1] if i + 1 < len(args) else "")
            )
            if j + 1 >= len(word):
                i += 1
            if letter in wanted:
                out.append(value)
            break
        i += 1
    return out


def _positionals(args: tuple[str, ...], valued: str) -> list[str]:
    """The words after the options (getopt-style, option values skipped)."""
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            return list(args[i + 1 :])
        if not word.startswith("-") or word == "-":
            break
        for j in range(1, len(word)):
            if word[j] in valued:
                if j + 1 >= len(word):
                    i += 1
                break
        i += 1
    return list(args[i:])


def is_variable_name(word: str) -> bool:
    return _NAME.fullmatch(word.split("[", 1)[0]) is not None
