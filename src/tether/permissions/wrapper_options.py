"""Option parsing for commands that wrap others (timeout, env, sudo, xargs...): strict, since
an option not understood means not knowing what runs."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
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
    positionals_written: bool = False
    """The leading positionals are files the program opens to write, created when missing
    (flock's lock file, logsave's log): judged as `touch FILE` is."""
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
    """Options whose value is a file written (`time -o FILE`, `fakeroot -s FILE`, `unshare
    --mount=FILE`, which mounts over it)."""
    reads: frozenset[str] = field(default_factory=frozenset[str])
    """Options whose value is a file read (`fakeroot -i FILE`)."""
    attached_only: str = ""
    """Short options whose value, if any, must be attached (`xargs -i[REPLACE]`)."""
    positional_shape: re.Pattern[str] | None = None
    """What each leading positional looks like (chrt's priority is a number): a word that does
    not is where the command starts, whatever the program's version makes optional."""
    optional_values: Mapping[str, re.Pattern[str]] = field(
        default_factory=dict[str, re.Pattern[str]]
    )
    """Options whose value is optional (argparse's `nargs="?"`: `tox -p [auto|all|N]`): the
    next word is its value only when it has the value's shape."""
    default_shell: bool = False
    """Without a command it runs a shell, which reads its commands from the input
    (`unshare -r`, `fakeroot`)."""
    pipe_valued: frozenset[str] = frozenset()
    """Options whose value is shell code when it starts with `|` or `!` (`strace -o '|cmd'`)."""
    unsets: frozenset[str] = frozenset()
    """Options whose value is a variable removed from the command's environment (`env -u`):
    judged as `unset NAME` is."""
    clears: frozenset[str] = frozenset()
    """Options that empty the command's environment (`env -i`, `exec -c`): the variables
    tether sets for safety go too."""


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
            if name in spec.optional_values:
                if not eq and i < len(args) and spec.optional_values[name].fullmatch(args[i]):
                    value = args[i]
                    i += 1
                options.append((name, value or None))
            elif name in spec.long_valued:
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
            shape = spec.optional_values.get(name)
            if shape is not None:
                value = arg[j + 1 :]
                if not value and i < len(args) and shape.fullmatch(args[i]):
                    value = args[i]
                    i += 1
                options.append((name, value or None))
                break
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


_ENV_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}


def split_env_options(args: Sequence[str]) -> tuple[str, ...] | str | None:
    """env's arguments with `-S STRING` (`--split-string`) replaced by the words GNU env splits
    STRING into, so that what it runs is judged like any command; None when there is no -S,
    or why STRING cannot be split."""
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--" or not arg.startswith("-") or arg == "-" or not is_literal(arg):
            return None
        i += 1
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            if name == "--split-string":
                if not eq:
                    if i >= len(args):
                        return "--split-string without a value"
                    value = args[i]
                    i += 1
                return _with_split(out, value, args[i:])
            out.append(arg)
            if name in ("--unset", "--chdir") and not eq and i < len(args):
                out.append(args[i])
                i += 1
            continue
        letters = arg[1:]
        cut = min((letters.find(c) for c in "uCS" if c in letters), default=-1)
        if cut < 0 or letters[cut] != "S":
            out.append(arg)
            if cut == len(letters) - 1 and i < len(args):
                out.append(args[i])  # the value of a trailing -u or -C
                i += 1
            continue
        if cut:
            out.append("-" + letters[:cut])
        value = letters[cut + 1 :]
        if not value:
            if i >= len(args):
                return "-S without a value"
            value = args[i]
            i += 1
        return _with_split(out, value, args[i:])
    return None


def _with_split(before: list[str], text: str, after: Sequence[str]) -> tuple[str, ...] | str:
    if not is_literal(text):
        return "-S with a string that is not a literal"
    words = split_env_string(text)
    return words if isinstance(words, str) else (*before, *words, *after)


def split_env_string(text: str) -> tuple[str, ...] | str:
    """GNU env's -S splitting: blanks separate words; `'...'` is literal; `"..."` and bare
    text take backslash escapes; `${NAME}` is the variable's value; `#` starts a comment; `\\c`
    ends the string."""
    words: list[str] = []
    word: list[str] | None = None
    quote = ""
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        i += 1
        if quote == "'" and c != "'" and not (c == "\\" and i < n and text[i] in "\\'"):
            word = word if word is not None else []
            word.append(c)
            continue
        if c == quote:
            quote = ""
            continue
        if not quote and c in " \t\n\v\f\r":
            if word is not None:
                words.append("".join(word))
            word = None
            continue
        if not quote and c == "#" and word is None:
            break
        if not quote and c in "'\"":
            quote = c
            word = word or []
            continue
        if c == "$":
            end = text.find("}", i)
            if i >= n or text[i] != "{" or end < 0:
                return "a $ that is not ${NAME}"
            word = word if word is not None else []
            word.append(DYN)
            i = end + 1
            continue
        if c == "\\" and i < n:
            e = text[i]
            i += 1
            if e == "c":
                break
            if e == "_":
                if quote:
                    word = word if word is not None else []
                    word.append(" ")
                else:
                    if word is not None:
                        words.append("".join(word))
                    word = None
                continue
            c = _ENV_ESCAPES.get(e, e)
        word = word if word is not None else []
        word.append(c)
    if quote:
        return "an unterminated quote"
    if word is not None:
        words.append("".join(word))
    return tuple(words)
