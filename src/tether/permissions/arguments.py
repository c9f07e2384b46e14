"""Splitting a command's arguments into options and positionals, the getopt way."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tether.permissions.commands import CommandSpec
from tether.permissions.shell_words import DYN, is_literal


@dataclass
class Arguments:
    options: list[tuple[str, str | None]] = field(default_factory=list[tuple[str, str | None]])
    """(name, value): `-n 5` is ("-n", "5"); `-la` is ("-l", None), ("-a", None)."""
    positionals: list[str] = field(default_factory=list[str])
    unknown_option: bool = False
    """A word that could be any option (`-$X`, `$OPTS`): forbidden ones included."""

    def has(self, names: Iterable[str]) -> bool:
        wanted = frozenset(names)
        return any(option_in(name, wanted) for name, _ in self.options)

    def values(self, names: Iterable[str]) -> list[str]:
        wanted = frozenset(names)
        return [v for name, v in self.options if v is not None and option_in(name, wanted)]


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
    valued = spec.valued | spec.read_valued | spec.write_valued | spec.pattern_options
    out = Arguments()
    i = 0
    only_positionals = False
    while i < len(args):
        arg = args[i]
        i += 1
        if only_positionals or arg == "-" or not (arg.startswith("-") or arg.startswith(DYN)):
            out.positionals.append(arg)
            continue
        if arg == "--":
            only_positionals = True
            continue
        if not is_literal(arg):
            # `$X` may be an option or a file; it is kept as a file too.
            out.unknown_option = True
            out.positionals.append(arg)
            continue
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            if not eq and option_in(name, valued) and i < len(args):
                value = args[i]
                i += 1
                eq = "="
            out.options.append((name, value if eq else None))
            continue
        for j, letter in enumerate(arg[1:], start=1):
            name = f"-{letter}"
            if name in valued:
                value = arg[j + 1 :]
                if not value and i < len(args):
                    value = args[i]
                    i += 1
                out.options.append((name, value or None))
                break
            out.options.append((name, None))
    return out
