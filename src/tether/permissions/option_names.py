"""Long options as programs read them, the one place a table's option names are matched
against a word. getopt_long, argparse, optparse and GNU argp take any unambiguous prefix of a
long option (`--basetem` is `--basetemp`); getopt_long_only (gdb) takes it after one dash too
(`-comm` is `--command`); npm's option parser (nopt) takes any unambiguous prefix of its
settings (`--script-she` is `--script-shell`). A prefix of several options is taken as any
of them (the program refuses it or picks one, whichever a table fears), and a name the
program knows in full is that option only (`gdb -e` is `-exec`, not `-ex`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence


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


def option_pairs(
    args: tuple[str, ...],
    options: tuple[str, ...],
    *,
    prefixes: bool = False,
    known: frozenset[str] = frozenset(),
) -> list[tuple[str, str]]:
    """(option, value) for each of `options` in `args`: `-r X`, `-rX`, `--opt X`, `--opt=X`
    (with `prefixes`, any prefix of `--opt` the program takes for it: option_names.py),
    until `--` or, for short options, a word that is no option."""
    found: list[tuple[str, str]] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            break
        given = long_option(arg, options, known=known) if prefixes and arg[:2] == "--" else None
        if given is not None:
            if given[1] is not None:
                found.append((given[0], given[1]))
            elif i + 1 < len(args):
                found.append((given[0], args[i + 1]))
                i += 1
            i += 1
            continue
        for option in options:
            if arg == option and i + 1 < len(args):
                found.append((option, args[i + 1]))
                i += 1
                break
            if option.startswith("--") and arg.startswith(option + "="):
                found.append((option, arg[len(option) + 1 :]))
                break
            if not option.startswith("--") and arg.startswith(option) and len(arg) > 2:
                found.append((option, arg[len(option) :].removeprefix("=")))
                break
        i += 1
    return found


def plain_operands(args: Sequence[str], valued: Collection[str]) -> list[str]:
    """The words that are no option nor the value of one of `valued` given as the next word
    (`--exclude '*:*'`, `-o origin`)."""
    found: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("-"):
            skip = arg in valued
        else:
            found.append(arg)
    return found
