"""Long options as programs read them, the one place a table's option names are matched
against a word. getopt_long, argparse, optparse and GNU argp take any unambiguous prefix of a
long option (`--basetem` is `--basetemp`); getopt_long_only (gdb) takes it after one dash too
(`-comm` is `--command`); npm's option parser (nopt) takes any unambiguous prefix of its
settings (`--script-she` is `--script-shell`). A prefix of several options is taken as any
of them (the program refuses it or picks one, whichever a table fears), and a name the
program knows in full is that option only (`gdb -e` is `-exec`, not `-ex`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final

from tether.slotted import Slotted


def long_option(
    word: str,
    options: Collection[str],
    *,
    known: Collection[str] = (),
    one_dash: bool = False,
    prefixes: bool = True,
) -> tuple[str, str | None] | None:
    """The option of `options` that `word` gives, and its value when attached with `=`; None
    when it gives none of them. `known` lists other full names of the program's (an exact
    name wins over the longer ones it begins); with `one_dash`, `-name` is read as `--name`
    and the tables may spell options either way; without `prefixes`, only exact names."""
    if not word.startswith("-") or word in ("-", "--"):
        return None
    name, eq, value = word.partition("=")
    attached = value if eq else None
    if name in options:
        return name, attached
    spelled: Collection[str] = options
    by_name: dict[str, str] = {}
    if one_dash:
        # Each table option under its two-dash spelling (gdb's tables list `-ex` and `--ex`).
        by_name = {_two_dashes(option): option for option in options}
        name = _two_dashes(name)
        if name in by_name:
            return by_name[name], attached
        known = {_two_dashes(k) for k in known}
        spelled = by_name
    if not prefixes or not name.startswith("--") or len(name) <= 2 or name in known:
        return None
    for full in spelled:
        if full.startswith(name) and full.startswith("--"):
            return (by_name[full] if one_dash else full), attached
    return None


def _two_dashes(name: str) -> str:
    return name if name.startswith("--") or len(name) < 2 else "-" + name


class OptionGrammar(Slotted):
    """How a command's words give the options a table looks for: the names taking a value,
    the flags among them (found with an empty value), whether short options group (`-0f X`:
    any letters before the one taking a value), whether long ones may be abbreviated as the
    program allows (`long_option`, with `known` the program's other full names), and whether
    `--` ends the options."""

    __slots__ = ("flags", "grouped", "known", "names", "prefixes", "stops")
    names: Final[tuple[str, ...]]
    flags: Final[frozenset[str]]
    grouped: Final[bool]
    prefixes: Final[bool]
    known: Final[frozenset[str]]
    stops: Final[bool]

    def __init__(
        self,
        names: tuple[str, ...],
        *,
        flags: Collection[str] = (),
        grouped: bool = False,
        prefixes: bool = False,
        known: Collection[str] = (),
        stops: bool = True,
    ) -> None:
        self.names = names
        self.flags = frozenset(flags)
        self.grouped = grouped
        self.prefixes = prefixes
        self.known = frozenset(known)
        self.stops = stops


def option_pairs(
    args: Sequence[str], grammar: OptionGrammar | tuple[str, ...]
) -> list[tuple[str, str]]:
    """(option, value) for each of the grammar's options in `args`: `-r X`, `-rX`, `-r=X`,
    `--opt X`, `--opt=X`, a flag with an empty value; the one reader of option values. A
    tuple of names is the plain grammar: each takes a value, long ones by their full name."""
    if isinstance(grammar, tuple):
        grammar = OptionGrammar(grammar)
    found: list[tuple[str, str]] = []
    names, flags = grammar.names, grammar.flags
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--" and grammar.stops:
            break
        if arg[:2] == "--":
            given = long_option(arg, names, known=grammar.known, prefixes=grammar.prefixes)
            if given is None:
                continue
            option, attached = given
            if option in flags:
                found.append((option, ""))
            elif attached is not None:
                found.append((option, attached))
            elif i < len(args):
                found.append((option, args[i]))
                i += 1
            continue
        if arg[:1] != "-" or len(arg) < 2:
            continue
        option, rest = _short(arg, grammar)
        if not option:
            continue
        if option in flags:
            found.append((option, ""))
        elif rest:
            found.append((option, rest))
        elif i < len(args):
            found.append((option, args[i]))
            i += 1
    return found


def _short(arg: str, grammar: OptionGrammar) -> tuple[str, str]:
    """The option of the grammar a word starting with one dash gives, and what follows it in
    the word; ("", "") for none."""
    if grammar.grouped:
        for at in range(1, len(arg)):
            if (option := "-" + arg[at]) in grammar.names:
                return option, arg[at + 1 :]
        return "", ""
    for option in grammar.names:
        if not option.startswith("--") and arg.startswith(option):
            return option, arg[len(option) :].removeprefix("=")
    return "", ""


def first_operand(args: Sequence[str], grammar: OptionGrammar) -> int:
    """Where the first word that is no option nor an option's value is, read as `option_pairs`
    reads options (the command word after a program's global options: `hg -qR DIR log`,
    `hg --repos DIR log`); len(args) for none. The grammar's names are those taking a value."""
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--" and grammar.stops:
            return i
        if arg[:1] != "-" or arg == "-":
            return i - 1
        if arg[:2] == "--":
            given = long_option(arg, grammar.names, known=grammar.known, prefixes=grammar.prefixes)
            valued = given is not None and given[0] not in grammar.flags and given[1] is None
        else:
            option, rest = _short(arg, grammar)
            valued = bool(option) and option not in grammar.flags and not rest
        i += 1 if valued else 0
    return len(args)


def option_values(args: Sequence[str], grammar: OptionGrammar | tuple[str, ...]) -> list[str]:
    """The values `option_pairs` finds."""
    return [value for _, value in option_pairs(args, grammar)]


def plain_operands(args: Sequence[str], valued: Collection[str]) -> list[str]:
    """The words that are no option nor the value of one of `valued` given as the next word
    (`--exclude '*:*'`, `-o origin`): every word after `--` (the end of the options), and a
    lone `-` (standard input or output, an operand)."""
    found: list[str] = []
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
        elif arg == "--":
            found += args[i + 1 :]
            break
        elif arg.startswith("-") and arg != "-":
            skip = arg in valued
        else:
            found.append(arg)
    return found


def dashed_options(args: Sequence[str]) -> tuple[str, ...]:
    """`args` with each long option's name spelled with dashes, as node reads its own
    (`--env_file=F` is `--env-file=F`, `--experimental_loader` `--experimental-loader`); up
    to `--`, the value after `=` as written."""
    ends = list(args).index("--") if "--" in args else len(args)
    return tuple(_dashed(a) if i < ends and a.startswith("--") else a for i, a in enumerate(args))


def _dashed(word: str) -> str:
    name, eq, value = word.partition("=")
    return name.replace("_", "-") + eq + value
