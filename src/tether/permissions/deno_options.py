"""deno's command line read as deno's parser (clap) reads it, with the option tables of
deno_option_table.py (generated from deno's own help): the one reading of deno's words, for
its grants (deno_permissions.py), what it writes (deno_outputs.py) and the options it only
prints with (looked through: wrappers.py).

Before the subcommand deno takes its global options (`-q`, `-L LEVEL`) and, for `deno SCRIPT`
(run implied), run's; after it, the subcommand's and the global ones. An option the table
does not know may take the next word or not, so the judge cannot tell which word is the
script or the subcommand: it is listed in `unknown`, and asked, never guessed past."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tether.permissions.deno_option_table import DENO_OPTIONS, DENO_VERSION, DenoOptions

ALIASES = {"i": "install", "rm": "remove"}
"""Subcommands deno also takes by another name (deno 2.9.6: `deno i`, `deno rm`)."""
_SCRIPT_ENDS = frozenset({"", "run", "watch", "serve", "compile", "desktop", "eval", "task", "x"})
"""Subcommands whose first operand (the script, the code, the task, the package) ends deno's
words: those after it are the script's."""
_PRINTING = frozenset({"--quiet", "--log-level"})
"""Global options that change only what deno prints."""


@dataclass(frozen=True)
class DenoLine:
    """One deno command line as deno reads it."""

    command: str
    """The subcommand as deno names it (an alias resolved); "" for `deno SCRIPT` (run)."""
    options: tuple[tuple[str, str | None], ...]
    """Each option (its long name) and its value, before and after the subcommand."""
    operands: tuple[str, ...]
    """The words that are no option: with a script, the script alone."""
    unknown: tuple[str, ...]
    """Option words deno's table does not know: where they end is not known."""

    def asks(self) -> tuple[str, ...]:
        """Why the line cannot be read: an option the table does not know."""
        return tuple(
            f"deno option {word} is not one tether knows (from deno {DENO_VERSION}): "
            "cannot tell which word it takes, so what deno runs is not known"
            for word in self.unknown
        )


def _merged(*names: str) -> DenoOptions:
    tables = [DENO_OPTIONS[name] for name in names]
    short: dict[str, str] = {}
    for table in tables:
        short.update(table.short)
    return DenoOptions(
        frozenset().union(*(t.valued for t in tables)),
        frozenset().union(*(t.flags for t in tables)),
        short,
    )


_ROOT = _merged("", "run")
_TABLES: Mapping[str, DenoOptions] = {
    name: _merged("", name) for name in DENO_OPTIONS if name not in ("", "help")
}


def deno_line(args: tuple[str, ...]) -> DenoLine:
    """deno's words `args` (after the program name) as deno reads them."""
    options: list[tuple[str, str | None]] = []
    unknown: list[str] = []
    i = _options_until_operand(args, 0, _ROOT, options, unknown)
    command = ""
    if i < len(args) and args[i] != "--":
        named = ALIASES.get(args[i], args[i])
        if named in _TABLES:
            command, i = named, i + 1
    table = _TABLES.get(command, _ROOT)
    operands: list[str] = []
    ends = command in _SCRIPT_ENDS
    while i < len(args):
        i = _options_until_operand(args, i, table, options, unknown)
        if i >= len(args):
            break
        if args[i] == "--":
            operands.extend(args[i + 1 : i + 2] if ends else args[i + 1 :])
            break
        operands.append(args[i])
        i += 1
        if ends:
            break
    return DenoLine(command, tuple(options), tuple(operands), tuple(unknown))


def printing_options_off(args: tuple[str, ...]) -> tuple[str, ...] | None:
    """`args` without the global options before the subcommand that only change what deno
    prints (`deno -q task c` is `deno task c`); None when there are none."""
    i = 0
    while i < len(args):
        given, takes_next, strange = deno_options(args[i], _next(args, i), DENO_OPTIONS[""])
        if strange or not given or any(name not in _PRINTING for name, _value in given):
            break
        i += 1 + takes_next
    return args[i:] if i else None


def _options_until_operand(
    args: tuple[str, ...],
    i: int,
    table: DenoOptions,
    options: list[tuple[str, str | None]],
    unknown: list[str],
) -> int:
    """Reads options from `args[i]` on; the index of the first word that is none."""
    while i < len(args) and args[i].startswith("-") and args[i] not in ("-", "--"):
        given, takes_next, strange = deno_options(args[i], _next(args, i), table)
        if strange:
            unknown.append(args[i])
        options.extend(given)
        i += 1 + takes_next
    return i


def _next(args: tuple[str, ...], i: int) -> str | None:
    return args[i + 1] if i + 1 < len(args) else None


def deno_options(
    word: str, after: str | None, table: DenoOptions
) -> tuple[list[tuple[str, str | None]], int, bool]:
    """The options one word gives, each (long name, value or None), how many of the next
    words they take (0 or 1; `after` is the next word), and whether the table does not know
    one of them, as clap reads them: `--name=value`, `--name VALUE` for an option taking one
    (`--lock [FILE]` takes the next word unless it is an option); a group of short letters
    (`-rA`, `-qRW`), each its own option, where a letter whose value is optional takes it
    only after `=` (`-rR=src`) and a letter taking a value (`-c`, `-L`, `-o`) takes the rest
    of the word or, when none is left, the next word, ending the group (`-R.`, `-Rsrc`,
    `-R=src`: what follows a letter that is no letter of the table is its value, as deno
    reads them). deno's unstable
    switches (`--unstable-kv`) are flags, hidden from its help."""
    name, eq, value = word.partition("=")
    if word.startswith("--"):
        if name in table.valued and not eq:
            if after is None or (name == "--lock" and after.startswith("-")):
                return [(name, None)], 0, False
            return [(name, after)], 1, False
        known = name in table.valued or name in table.flags or name.startswith("--unstable-")
        return [(name, value if eq else None)], 0, not known
    options: list[tuple[str, str | None]] = []
    for j, letter in enumerate(word[1:], start=2):
        option = table.short.get(letter)
        if option is None and options:
            # `-R.`, `-Rsrc`: what follows a letter and is no letter deno knows is its value
            # (refused for a letter taking none).
            options[-1] = (options[-1][0], word[j - 1 :].removeprefix("="))
            return options, 0, False
        if option is None:
            return options, 0, True
        if option in table.valued:
            rest = word[j:].removeprefix("=")
            options.append((option, rest if rest else after))
            return options, 0 if rest or after is None else 1, False
        options.append((option, None))
    return options, 0, False
