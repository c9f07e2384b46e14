"""Splitting a command's arguments into options and positionals, the getopt way."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from tether.permissions.command_spec import CommandSpec
from tether.permissions.option_names import long_option
from tether.permissions.shell_words import DYN, is_literal


@dataclass
class Arguments:
    options: list[tuple[str, str | None]] = field(default_factory=list[tuple[str, str | None]])
    """(name, value): `-n 5` is ("-n", "5"); `-la` is ("-l", None), ("-a", None)."""
    positionals: list[str] = field(default_factory=list[str])
    placed: list[int] = field(default_factory=list[int])
    """For each positional, how many options came before it (where it stands among them:
    `tar -C DIR FILE` reads FILE from DIR)."""
    unknown_option: bool = False
    """A word that could be any option (`-$X`, `$OPTS`): forbidden ones included."""
    unrecognised: list[str] = field(default_factory=list[str])
    """Options the spec does not list (only for specs that list their flags): the program may
    do anything with them, so it is not read-only."""
    unrecognised_words: list[str] = field(default_factory=list[str])
    """The words those options were given in (`--random-source=.env`, `-X.env`): a value in
    them may name a file the program opens."""

    def add_positional(self, word: str) -> None:
        self.positionals.append(word)
        self.placed.append(len(self.options))

    exact: set[str] = field(default_factory=set[str])
    """Long options given by a name the spec knows in full (or expanded to one): matched as
    that name only, not as an abbreviation of a longer one."""

    def is_option(self, name: str, names: frozenset[str]) -> bool:
        return name in names if name in self.exact else option_in(name, names)

    def has(self, names: Iterable[str]) -> bool:
        """Whether one of `names` is given; an entry `--opt=value` needs that value."""
        if not self.options:
            return False
        plain, keyed = _entries(frozenset(names))
        for name, value in self.options:
            if self.is_option(name, plain):
                return True
            for option, needed in keyed:
                if value == needed and self.is_option(name, option):
                    return True
        return False

    def values(self, names: Iterable[str]) -> list[str]:
        wanted = frozenset(names)
        return [v for name, v in self.options if v is not None and self.is_option(name, wanted)]


@lru_cache(maxsize=1024)
def _entries(
    names: frozenset[str],
) -> tuple[frozenset[str], tuple[tuple[frozenset[str], str], ...]]:
    """Plain option names, and `--opt=value` entries as (option, value)."""
    plain = frozenset(n for n in names if "=" not in n)
    keyed = tuple(
        (frozenset((n.partition("=")[0],)), n.partition("=")[2]) for n in names if "=" in n
    )
    return plain, keyed


def _named(arg: str, valued: frozenset[str], spec: CommandSpec) -> bool:
    """`--opt=$X`, `-O$X`: an option known to take a value, only the value unknown."""
    if arg.startswith("--"):
        name = arg.partition("=")[0]
        return is_literal(name) and _takes_value(name, valued, spec)
    return len(arg) > 1 and is_literal(arg[:2]) and arg[:2] in valued


def long_name(name: str, spec: CommandSpec) -> tuple[str, bool]:
    """The long option `name` stands for, as getopt reads it: itself when the spec knows it
    in full (an exact name wins over longer ones it begins), the one known option it
    abbreviates; and whether that is known. Otherwise `name`, not known."""
    every = spec.long_options
    if name in every:
        return name, True
    longer = [option for option in every if option.startswith(name)]
    if len(name) > 2 and len(longer) == 1:
        return longer[0], True
    return name, False


def _takes_value(name: str, valued: frozenset[str], spec: CommandSpec) -> bool:
    full, known = long_name(name, spec)
    return full in valued if known else option_in(name, valued)


def option_in(name: str, names: frozenset[str]) -> bool:
    """Whether option `name` is one of `names`; long options may be abbreviated (getopt accepts
    any unambiguous prefix: `--out` is `--output`)."""
    return long_option(name, names) is not None


def split_arguments(args: Sequence[str], spec: CommandSpec) -> Arguments:
    """Options and positionals of a command described by `spec`. Unknown options are taken as
    flags: a value mistaken for a flag ends up a positional, which is checked as a file (the
    safe side)."""
    valued = spec.valued_options
    known = spec.known_options
    out = Arguments()
    i = 0
    only_positionals = False
    while i < len(args):
        arg = args[i]
        i += 1
        if only_positionals or arg == "-" or not (arg.startswith("-") or arg.startswith(DYN)):
            out.add_positional(arg)
            continue
        if arg == "--":
            only_positionals = True
            continue
        if not is_literal(arg) and not _named(arg, valued | spec.attached, spec):
            # `$X` may be an option or a file; it is kept as a file too.
            out.unknown_option = True
            out.add_positional(arg)
            continue
        paired = long_name(arg, spec)[0] if arg.startswith("--") else arg
        if paired in spec.pairs or paired in spec.read_pairs:
            # The name is of no interest; the second value is kept.
            out.options.append((paired, args[i + 1] if i + 1 < len(args) else None))
            i += 2
            continue
        if arg in valued and not arg.startswith("--") and len(arg) > 2:
            # A single-dash word option (`zip -TT CMD`, `xxd -cols N`).
            out.options.append((arg, args[i] if i < len(args) else None))
            i += 1
            continue
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            full, known_name = long_name(name, spec)
            # An optional value is not the option that follows (`--cov --cov-config=F`).
            taken = i < len(args) and not (full in spec.optional_valued and args[i][:1] == "-")
            if not eq and _takes_value(name, valued, spec) and taken:
                value = args[i]
                i += 1
                eq = "="
            if known_name:
                name = full
                out.exact.add(full)
            out.options.append((name, value if eq else None))
            if known is not None and not option_in(name, known):
                out.unrecognised.append(name)
                out.unrecognised_words.append(arg)
            continue
        if spec.word_options:
            # One option per word, named by its first letter (xxd: `-ps` is `-p`).
            name, rest = arg[:2], arg[2:]
            if known is not None and name not in known and arg[1] not in spec.flags:
                out.unrecognised.append(name)
                out.unrecognised_words.append(arg)
            if name in valued and rest:
                out.options.append((name, rest))
            elif name in valued:
                out.options.append((name, args[i] if i < len(args) else None))
                i += 1
            else:
                out.options.append((name, None))
            continue
        for j, letter in enumerate(arg[1:], start=1):
            name = f"-{letter}"
            if known is not None and name not in known and letter not in spec.flags:
                out.unrecognised.append(name)
                out.unrecognised_words.append(arg)
            if name in spec.attached:
                out.options.append((name, arg[j + 1 :] or None))
                break
            if name in valued:
                value = arg[j + 1 :]
                if not value and i < len(args):
                    value = args[i]
                    i += 1
                out.options.append((name, value or None))
                break
            out.options.append((name, None))
    return out
