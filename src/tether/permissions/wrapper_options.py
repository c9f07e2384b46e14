"""Option parsing for commands that wrap others (timeout, env, sudo, xargs...): strict, since
an option not understood means not knowing what runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tether.permissions.script import Invocation, Role
from tether.permissions.shell_words import DYN, is_literal


@dataclass(frozen=True)
class WrapperSpec:
    role: Role = "wrapper"
    flags: str = ""
    """Short options without a value."""
    valued: str = ""
    """Short options taking a value (attached or the next word)."""
    long_flags: frozenset[str] = frozenset()
    long_valued: frozenset[str] = frozenset()
    leading_positionals: int = 0
    """Words before the command (timeout's DURATION)."""
    assignments: bool = False
    """`NAME=value` words may come before the command (env, sudo)."""
    numeric: bool = False
    """`-5` means `-n 5` (nice)."""
    no_command: frozenset[str] = frozenset()
    """Options after which nothing is run (`command -v`, `sudo -l`)."""
    unsupported: frozenset[str] = frozenset()
    """Options not looked through (`env -S`, `sudo -D`): asked."""
    shell_code: frozenset[str] = frozenset()
    """Options making the rest a shell command line (`sudo -s CMD`)."""
    writes: frozenset[str] = field(default_factory=frozenset[str])
    """Options whose value is a file written (`time -o FILE`)."""
    attached_only: str = ""
    """Short options whose value, if any, must be attached (`xargs -i[REPLACE]`)."""


def names(*items: str) -> frozenset[str]:
    return frozenset(items)


@dataclass
class ParsedOptions:
    options: list[tuple[str, str | None]]
    rest: int
    """Index in the arguments where the wrapped command (or leading positionals) starts."""


def parse_options(args: Sequence[str], spec: WrapperSpec) -> ParsedOptions | str:
    """Options up to the wrapped command, or why they cannot be understood."""
    options: list[tuple[str, str | None]] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return ParsedOptions(options, i + 1)
        if not arg.startswith("-") or arg == "-":
            if arg.startswith(DYN):
                return "an option or command that is not a literal"
            break
        if not is_literal(arg):
            return f"an option that is not a literal ({arg!r})"
        i += 1
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            if name in spec.long_valued:
                if not eq:
                    if i >= len(args):
                        return f"{name} without a value"
                    value = args[i]
                    i += 1
                options.append((name, value))
            elif name in spec.long_flags:
                options.append((name, value if eq else None))
            else:
                return f"unknown option {name}"
            continue
        if spec.numeric and arg[1:].isdigit():
            options.append(("-n", arg[1:]))
            continue
        for j, letter in enumerate(arg[1:], start=1):
            name = f"-{letter}"
            if letter in spec.valued:
                value = arg[j + 1 :]
                if not value and letter not in spec.attached_only:
                    if i >= len(args):
                        return f"{name} without a value"
                    value = args[i]
                    i += 1
                options.append((name, value or None))
                break
            if letter not in spec.flags:
                return f"unknown option {name}"
            options.append((name, None))
    return ParsedOptions(options, i)


def unparsed(plain: Invocation, role: Role, problem: str) -> Invocation:
    """`plain` as a command whose wrapped command cannot be told: asked, and deny rules are
    tried on every tail of its words."""
    return Invocation(
        plain.argv,
        plain.assignments,
        plain.redirects,
        role=role,
        problems=(problem,),
        unparsed_from=1,
    )
