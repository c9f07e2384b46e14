"""GNU make's options as getopt reads them, for the makefiles it is given: short flags bundle
(`-rf -`, `-sf-`, `-Rf/dev/stdin`, `-C src -sf -`) and a long option may be any unique prefix
(`--mak=-`, `--fil /dev/stdin`). Reading only `-f X` and `--file=X` let a makefile from the
input through under the other spellings."""

from __future__ import annotations

_SHORT_VALUED = frozenset("CfIoWE")
"""Letters taking a value: the rest of the word, or the next word."""
_SHORT_OPTIONAL = frozenset("jlO")
"""Letters taking an optional value: the rest of the word only."""
_LONG_FILE = ("--file", "--makefile")
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
    it runs in (and whose makefile it reads), `I` a directory searched for included ones."""
    found: list[tuple[str, str]] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            break
        if arg.startswith("--"):
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
        elif arg.startswith("-") and len(arg) > 1:
            i += _short(arg, args[i + 1] if i + 1 < len(args) else "-", found)
        i += 1
    return found


def _matches(name: str, options: tuple[str, ...]) -> bool:
    """Whether `--NAME` may stand for one of `options`: getopt takes any unambiguous prefix;
    an ambiguous one is taken as any it may be."""
    return len(name) > 2 and any(option.startswith(name) for option in options)


def _short(arg: str, after: str, found: list[tuple[str, str]]) -> int:
    """Reads one word of bundled short flags; how many words after it its value took."""
    for k, letter in enumerate(arg[1:], start=2):
        if letter in _SHORT_OPTIONAL:
            return 0
        if letter in _SHORT_VALUED:
            value = arg[k:] or after
            if letter in "fCI":
                found.append((letter, value))
            return 0 if arg[k:] else 1
    return 0
