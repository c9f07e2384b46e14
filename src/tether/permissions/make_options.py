"""GNU make's options as getopt reads them, for the makefiles it is given: short flags bundle
(`-rf -`, `-sf-`, `-Rf/dev/stdin`, `-C src -sf -`) and a long option may be any unique prefix
(`--mak=-`, `--fil /dev/stdin`). Reading only `-f X` and `--file=X` let a makefile from the
input through under the other spellings."""

from __future__ import annotations

import re

from tether.permissions.option_names import long_option
from tether.permissions.shell_words import is_literal

_SHORT_VALUED = frozenset("CfIoWE")
"""Letters taking a value: the rest of the word, or the next word."""
_SHORT_OPTIONAL = frozenset("jlO")
"""Letters taking an optional value: the rest of the word only."""
_LONG_FILE = ("--file", "--makefile")
_ASSIGNED = re.compile(r"[^\s=:+?!\x00-\x03]+\s*(::?:?=|\+=|\?=|!=|=)")
"""A command-line assignment whose variable's name is plain (its value may not be)."""
_ENVIRONMENT_OVERRIDES = ("--environment-overrides",)
_LONG_VALUED = (
    *("--directory", "--include-dir", "--old-file", "--assume-old", "--what-if"),
    *("--new-file", "--assume-new", "--eval", "--jobserver-style"),
)


def makefiles(args: tuple[str, ...]) -> list[str]:
    """The makefiles `args` name (`-f`'s values however spelled); a `-f` that ends the words
    names `-` (the parser took a `-` before a heredoc for its own)."""
    return [value for letter, value in make_places(args) if letter == "f"]


def make_places(args: tuple[str, ...]) -> list[tuple[str, str]]:
    """Where make reads makefiles from, as (letter, value): `f` a makefile, `C` the directory
    it runs in (and whose makefile it reads), `I` a directory searched for included ones.
    make's `-C` options compose (each is relative to the one before: `-C .. -C ..` is two
    levels up), so the literal ones come as one `C`, their fold, where the first stood; one
    known only as it runs comes as it is."""
    places = [(letter, value) for letter, value in _make_words(args) if letter in "fCI"]
    directory = run_directory([value for letter, value in places if letter == "C"])
    found: list[tuple[str, str]] = []
    for letter, value in places:
        if letter != "C" or not is_literal(value):
            found.append((letter, value))
        elif directory is not None:
            found.append(("C", directory))
            directory = None
    return found


def run_directory(directories: list[str]) -> str | None:
    """The directory a run of `-C DIR` options lands in, relative to where the command starts
    (each relative one is taken from the one before, an absolute one starts again); None
    without a literal one. Ones known only as it runs are left out (their callers ask)."""
    directory: str | None = None
    for value in directories:
        if not is_literal(value):
            continue
        if directory is None or value.startswith(("/", "~")):
            directory = value
        else:
            directory = f"{directory.rstrip('/')}/{value}"
    return directory


def eval_texts(args: tuple[str, ...]) -> list[str]:
    """The makefile texts `--eval`/`-E` give that are known now (make_eval.py reads them)."""
    return [value for letter, value in _make_words(args) if letter == "E" and is_literal(value)]


def unread_code(args: tuple[str, ...]) -> str | None:
    """Makefile text make is given that is only known as the command runs, or None: an
    `--eval`/`-E` value, or a word that may be an option, an assignment or a target
    (`make "$X"`: `--eval=...`, `SHELL=...`); each is code not seen."""
    for letter, value in _make_words(args):
        if letter == "E" and not is_literal(value):
            return "make's --eval text"
        if letter == "?":
            return "a word of make's that may be an option or an assignment"
    return None


def overrides_environment(args: tuple[str, ...]) -> bool:
    """Whether make is told its environment wins over the makefile's variables (`-e`,
    `--environment-overrides` and its prefixes, in a bundle: `-ej4`)."""
    return any(letter == "e" for letter, _ in _make_words(args))


def _make_words(args: tuple[str, ...]) -> list[tuple[str, str]]:
    """(letter, value) for make's places (`f`, `C`, `I`), its `--eval` text (`E`), `-e` and each
    word known only as the command runs where an option or an operand stands (`?`)."""
    found: list[tuple[str, str]] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            found += [("?", a) for a in args[i + 1 :] if not is_literal(a)]
            break
        if not is_literal(arg[:1]) or (
            arg.startswith("--") and not is_literal(arg.partition("=")[0])
        ):
            found.append(("?", arg))
        elif not arg.startswith("-"):
            if not is_literal(arg) and not _ASSIGNED.match(arg):
                # A target, or an assignment whose name is known only as it runs.
                found.append(("?", arg))
        elif arg.startswith("--"):
            name, eq, value = arg.partition("=")
            valued = _matches(name, _LONG_FILE + _LONG_VALUED)
            if not eq and valued:
                value = args[i + 1] if i + 1 < len(args) else "-"
                i += 1
            if _matches(name, _LONG_FILE):
                found.append(("f", value))
            elif _matches(name, ("--directory",)):
                found.append(("C", value))
            elif _matches(name, ("--include-dir",)):
                found.append(("I", value))
            elif _matches(name, ("--eval",)):
                found.append(("E", value))
            elif _matches(name, _ENVIRONMENT_OVERRIDES):
                found.append(("e", ""))
        elif arg.startswith("-") and len(arg) > 1:
            i += _short(arg, args[i + 1] if i + 1 < len(args) else "-", found)
        i += 1
    return found


def _matches(name: str, options: tuple[str, ...]) -> bool:
    """Whether `--NAME` may stand for one of `options`: getopt takes any unambiguous prefix;
    an ambiguous one is taken as any it may be."""
    return long_option(name, options) is not None


def _short(arg: str, after: str, found: list[tuple[str, str]]) -> int:
    """Reads one word of bundled short flags; how many words after it its value took."""
    for k, letter in enumerate(arg[1:], start=2):
        if not is_literal(letter):
            found.append(("?", arg))
            return 0
        if letter in _SHORT_OPTIONAL:
            return 0
        if letter == "e":
            found.append(("e", ""))
        if letter in _SHORT_VALUED:
            value = arg[k:] or after
            if letter in "fCIE":
                found.append((letter, value))
            return 0 if arg[k:] else 1
    return 0
