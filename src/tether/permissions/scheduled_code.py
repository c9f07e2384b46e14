"""Programs that keep commands to run later, or run each line of their input as a command:
`at` and `batch` (commands from the input or `-f FILE`), `crontab` (a table from the input,
`-`, a file, or an editor), GNU `parallel` and `sem` with no command of their own (each input
line is one). What they run is not read here: code from the input is code not seen, as for
`x | bash`, and so is a file or an editor's text, whatever the input (interpreter_code)."""

from __future__ import annotations

_AT = frozenset({"at", "batch"})
_AT_ONLY_LISTS = frozenset({"-l", "-d", "-r", "-c", "-V", "--help", "--version"})
"""`at` options after which it lists, removes or shows jobs: it schedules nothing."""
_AT_VALUED = frozenset({"-q", "-f", "-t"})
_CRONTAB_ONLY_LISTS = frozenset({"-l", "-r", "-V", "--help", "--version", "-T", "-h"})
_CRONTAB_VALUED = frozenset({"-u", "-s", "-c"})
_LINE_RUNNERS = frozenset({"parallel", "sem"})
_LINE_VALUED = frozenset(
    {"-j", "-P", "-N", "-n", "-a", "-S", "-I", "-d", "-E", "-C", "--id", "--jobs",
     "--max-procs", "--arg-file", "--sshlogin", "--delay", "--timeout", "--joblog",
     "--results", "--tmpdir", "--colsep", "--delimiter", "--max-args", "--semaphorename"}
)  # fmt: skip
"""Options of GNU parallel and sem that take the next word as their value."""


def scheduled_code(name: str, args: tuple[str, ...]) -> tuple[bool, str | None] | None:
    """(commands come from the input alone, the file or editor they come from otherwise), or
    None when `name ARGS` keeps no commands."""
    if name in ("atq", "atrm"):
        return None
    if name in _AT:
        return _at(args)
    if name == "crontab":
        return _crontab(args)
    if name in _LINE_RUNNERS:
        _, positionals = split_options(args, _LINE_VALUED)
        return (True, None) if not positionals else None
    return None


def _at(args: tuple[str, ...]) -> tuple[bool, str | None] | None:
    options, _ = split_options(args, _AT_VALUED)
    if any(option in _AT_ONLY_LISTS for option, _ in options):
        return None
    files = [value for option, value in options if option == "-f" and value is not None]
    if files and files[-1] not in ("-", "/dev/stdin"):
        return False, files[-1]
    return True, None


def _crontab(args: tuple[str, ...]) -> tuple[bool, str | None] | None:
    options, positionals = split_options(args, _CRONTAB_VALUED)
    names = {option for option, _ in options}
    if names & _CRONTAB_ONLY_LISTS:
        return None
    if "-e" in names:
        return False, "an editor"
    if positionals and positionals[0] != "-":
        return False, positionals[0]
    return True, None


def split_options(
    args: tuple[str, ...], valued: frozenset[str]
) -> tuple[list[tuple[str, str | None]], list[str]]:
    """getopt's reading of short options: bundles letter by letter, a valued letter taking
    the rest of its word or the next word; long options as written."""
    options: list[tuple[str, str | None]] = []
    positionals: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            positionals.extend(args[i:])
            break
        if arg.startswith("--"):
            name, equals, value = arg.partition("=")
            if not equals and name in valued and i < len(args):
                value, i = args[i], i + 1
            options.append((name, value or None))
        elif arg.startswith("-") and arg != "-":
            for k, letter in enumerate(arg[1:], start=1):
                if f"-{letter}" in valued:
                    rest = arg[k + 1 :]
                    if not rest and i < len(args):
                        rest, i = args[i], i + 1
                    options.append((f"-{letter}", rest))
                    break
                options.append((f"-{letter}", None))
        else:
            positionals.append(arg)
    return options, positionals
