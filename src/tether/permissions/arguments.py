"""Splitting a command's arguments into options and positionals, the getopt way."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from tether.permissions.command_spec import CommandSpec
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

    def has(self, names: Iterable[str]) -> bool:
        """Whether one of `names` is given; an entry `--opt=value` needs that value."""
        if not self.options:
            return False
        plain, keyed = _entries(frozenset(names))
        for name, value in self.options:
            if option_in(name, plain):
                return True
            for option, needed in keyed:
                if value == needed and option_in(name, option):
                    return True
        return False

    def values(self, names: Iterable[str]) -> list[str]:
        wanted = frozenset(names)
        return [v for name, v in self.options if v is not None and option_in(name, wanted)]


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


def _named(arg: str, valued: frozenset[str]) -> bool:
    """`--opt=$X`, `-O$X`: an option known to take a value, only the value unknown."""
    if arg.startswith("--"):
        name = arg.partition("=")[0]
        return is_literal(name) and option_in(name, valued)
    return len(arg) > 1 and is_literal(arg[:2]) and arg[:2] in valued


def option_in(name: str, names: frozenset[str]) -> bool:
    """Whether option `name` is one of `names`; long options may be abbreviated (getopt accepts
    any unambiguous prefix: `--out` is `--output`)."""
    if name in names:
        return True
    if name.startswith("--") and len(name) > 2:
        return any(n.startswith(name) for n in names if n.startswith("--"))
    return False


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
        if not is_literal(arg) and not _named(arg, valued | spec.attached):
            # `$X` may be an option or a file; it is kept as a file too.
            out.unknown_option = True
            out.add_positional(arg)
            continue
        if arg in spec.pairs or arg in spec.read_pairs:
            # The name is of no interest; the second value is kept.
            out.options.append((arg, args[i + 1] if i + 1 < len(args) else None))
            i += 2
            continue
        if arg in valued and not arg.startswith("--") and len(arg) > 2:
            # A single-dash word option (`zip -TT CMD`, `xxd -cols N`).
            out.options.append((arg, args[i] if i < len(args) else None))
            i += 1
            continue
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            # An exact flag is no abbreviation of a valued option (`--slurp`, `--slurpfile`).
            exact_flag = name in spec.long_flags and name not in valued
            if not eq and not exact_flag and option_in(name, valued) and i < len(args):
                value = args[i]
                i += 1
                eq = "="
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
