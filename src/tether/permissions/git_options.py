"""A git subcommand's options read as git's parse-options reads them: in order, the last
spelling of a setting winning, `--no-NAME` undoing `--NAME` or its letter, a long option given
as any prefix of only one name, the options that take a value skipping it (git_deleters,
git_discarders)."""

from __future__ import annotations

from typing import Final

from tether.slotted import Slotted

Argv = tuple[str, ...]


class Grammar(Slotted):
    """One subcommand's options: short letters and long names, each to the setting it turns
    on; the options that take a value (long, short); settings of which only the last given
    holds (`reset --soft --hard` is hard)."""

    __slots__ = ("exclusive", "longs", "short", "valued", "valued_short")
    short: Final[dict[str, str]]
    longs: Final[tuple[str, ...]]
    valued: Final[frozenset[str]]
    valued_short: Final[frozenset[str]]
    exclusive: Final[frozenset[str]]

    def __init__(
        self,
        short: dict[str, str],
        longs: str,
        valued: str = "",
        valued_short: str = "",
        exclusive: str = "",
    ) -> None:
        self.short = short
        self.longs = tuple(longs.split())
        self.valued = frozenset(valued.split())
        self.valued_short = frozenset(valued_short)
        self.exclusive = frozenset(exclusive.split())


class Read(Slotted):
    """The settings left on, the words before `--` that are not options, and those after it
    (None when there is no `--`)."""

    __slots__ = ("after", "before", "on")
    on: Final[set[str]]
    before: Final[list[str]]
    after: Final[list[str] | None]

    def __init__(self, on: set[str], before: list[str], after: list[str] | None) -> None:
        self.on = on
        self.before = before
        self.after = after

    @property
    def words(self) -> list[str]:
        """Every word that is not an option, on both sides of `--`."""
        return [*self.before, *(self.after or ())]


def read_options(args: Argv, grammar: Grammar) -> Read:
    """The settings `args` leaves on, read in order as git does, and its other words. A word
    git would refuse turns nothing off: whatever it leaves on, acts."""
    on: set[str] = set()
    before: list[str] = []
    skip = False
    names = (*grammar.longs, *grammar.valued)
    for j, arg in enumerate(args):
        if skip:
            skip = False
        elif arg == "--":
            return Read(on, before, list(args[j + 1 :]))
        elif arg.startswith("--"):
            name, eq, _ = arg[2:].partition("=")
            if (full := long_name(name, names)) in grammar.valued:
                skip = not eq
                on.add(full)  # given: its value is not read
            elif full is not None and not eq:
                _turn_on(on, full, grammar)
            elif (off := long_name(name.removeprefix("no-"), grammar.longs)) and name.startswith(
                "no-"
            ):
                on.discard(off)
        elif arg.startswith("-") and len(arg) > 1:
            for k, letter in enumerate(arg[1:]):
                if letter in grammar.valued_short:
                    skip = k == len(arg) - 2  # its value is the next word
                    break
                if letter in grammar.short:
                    _turn_on(on, grammar.short[letter], grammar)
        else:
            before.append(arg)
    return Read(on, before, None)


def _turn_on(on: set[str], setting: str, grammar: Grammar) -> None:
    if setting in grammar.exclusive:
        on.difference_update(grammar.exclusive)
    on.add(setting)


def long_name(name: str, names: tuple[str, ...]) -> str | None:
    """The one long option `name` spells in full or as a prefix of only it; None otherwise."""
    if name in names:
        return name
    fits = [full for full in names if name and full.startswith(name)]
    return fits[0] if len(fits) == 1 else None
