"""Shells given code: `bash -c STRING`, a script, their input, and the start-up files they run
first (`--rcfile`, `~/.bashrc` for `-i`, the profiles for `-l`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tether.permissions.script import Invocation
from tether.permissions.shell_words import is_literal
from tether.permissions.wrapper_options import names as _s
from tether.permissions.wrapper_options import unparsed

Code = Callable[..., Invocation]

SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "rbash"})
GENERATED_CODE = ("/dev/fd/", "/dev/stdin", "/proc/self/fd/", "/proc/thread-self/fd/")
"""Where code read by `source` or a shell comes from another command (`source <(...)`)."""
_SHELL_LONG_FLAGS = _s("--norc", "--noprofile", "--login", "--posix", "--restricted") | _s(
    "--verbose", "--noediting", "--debugger", "--pretty-print"
)
_SHELL_LONG_VALUED = _s("--rcfile", "--init-file")


@dataclass
class _ShellOptions:
    rest: int = 0
    """Where the code (`-c STRING`) or the script is."""
    runs_code: bool = False
    stdin_code: bool = False
    startup: list[str] = field(default_factory=list[str])
    """Start-up files named by `--rcfile` / `--init-file`."""
    letters: set[str] = field(default_factory=set[str])


def _shell_options(args: tuple[str, ...]) -> _ShellOptions | str:
    """A shell's options, or the one not understood."""
    found = _ShellOptions()
    i = 0
    while i < len(args):
        arg = args[i]
        if not is_literal(arg):
            return ""
        if arg == "--":
            i += 1
            break
        if arg.startswith("--"):
            if arg in _SHELL_LONG_VALUED and i + 1 < len(args):
                found.startup.append(args[i + 1])
                i += 2
                continue
            if arg not in _SHELL_LONG_FLAGS:
                return arg
            found.letters.add(_SHELL_LONG_LETTERS.get(arg, ""))
            i += 1
            continue
        if arg[:1] in "-+" and len(arg) > 1:
            if arg[0] == "-":
                found.letters |= set(arg[1:])
            found.runs_code = found.runs_code or (arg[0] == "-" and "c" in arg[1:])
            found.stdin_code = found.stdin_code or (arg[0] == "-" and "s" in arg[1:])
            i += 2 if ("o" in arg[1:] or "O" in arg[1:]) else 1
            continue
        break
    found.rest = i
    return found


def run_shell(plain: Invocation, name: str, code: Code) -> Invocation:
    """A shell's code: `-c STRING`, a script, or its input. Start-up files (`--rcfile FILE`,
    `~/.bashrc` for `-i`, the profiles for `-l`) are code too: read from another command's
    output (`--rcfile <(...)`) they cannot be judged; otherwise bash_policy asks about them
    (`startup_files`)."""
    args = plain.argv[1:]
    options = _shell_options(args)
    if isinstance(options, str):
        shown = f": {options}" if options else ""
        return unparsed(plain, "wrapper", f"cannot tell what {name} runs{shown}")
    i = options.rest
    if any(f.startswith(GENERATED_CODE) for f in options.startup):
        return unparsed(
            plain, "wrapper", f"{name} runs a start-up file that another command produces"
        )
    reads = tuple(options.startup)
    if options.runs_code:
        if i >= len(args):
            return unparsed(plain, "wrapper", f"{name} -c without a command")
        ran = code(args[i])
        # With start-up files the shell runs code of its own, like a script: it is judged as
        # a program (a rule must allow it), not only as a wrapper of its -c code.
        scripted = bool(startup_files(plain.argv))
        return Invocation(
            plain.argv,
            plain.assignments,
            plain.redirects,
            role="command" if scripted else "wrapper",
            inner=ran.inner,
            problems=ran.problems,
            reads=reads,
        )
    if options.stdin_code or i >= len(args) or args[i].startswith(GENERATED_CODE):
        # `echo cmd | bash`, `bash <(curl ...)`: the code comes from another command.
        return unparsed(plain, "wrapper", f"{name} runs code that another command produces")
    return Invocation(plain.argv, plain.assignments, plain.redirects, reads=(*reads, args[i]))


_SHELL_LONG_LETTERS = {"--login": "l", "--norc": "R", "--noprofile": "P"}
"""Long options as letters of their own for `startup_files` (R and P are no shell's)."""


def startup_files(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The start-up files a shell runs before its code, as shown to the user: `--rcfile` and
    `--init-file` ones, a login shell's (`-l`) profiles, an interactive one's (`-i`) rc file.
    sh, dash and ksh read `$ENV` instead, judged as a variable that changes what runs. (zsh's
    `.zshenv`, read by every zsh, is taken as the user's configuration, as a script is.)"""
    name = argv[0].rsplit("/", 1)[-1] if argv else ""
    if name not in SHELLS:
        return ()
    options = _shell_options(argv[1:])
    if isinstance(options, str):
        return ()
    found = list(options.startup)
    letters = options.letters
    if "l" in letters and "P" not in letters:
        found.append("the login profiles (/etc/profile, ~/.profile...)")
    elif "i" in letters and "R" not in letters and not options.startup:
        found.append("~/.zshrc" if name == "zsh" else "~/.bashrc")
    return tuple(found)


def script_file(argv: tuple[str, ...]) -> str | None:
    """The script file a shell runs (`sh run.sh`, `dash -e x`) or `.`/`source` reads, as
    written; None when it runs `-c` code or its input, or for other programs."""
    name = argv[0].rsplit("/", 1)[-1] if argv else ""
    if name in (".", "source"):
        return argv[1] if len(argv) > 1 and argv[1] != "--" else (argv[2:3] or (None,))[0]
    if name not in SHELLS:
        return None
    options = _shell_options(argv[1:])
    if isinstance(options, str) or options.runs_code or options.stdin_code:
        return None
    rest = argv[1:]
    return rest[options.rest] if options.rest < len(rest) else None
