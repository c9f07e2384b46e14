"""Commands that run code or other commands in their own way: shells given `-c`, xargs,
find -exec, su -c, watch."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tether.permissions.script import Invocation
from tether.permissions.shell_words import DYN, is_literal
from tether.permissions.wrapper_options import WrapperSpec, parse_options, unparsed
from tether.permissions.wrapper_options import names as _s

Code = Callable[..., Invocation]
Inner = Callable[[Sequence[str]], Invocation]


SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "rbash"})
_SHELL_LONG_FLAGS = _s("--norc", "--noprofile", "--login", "--posix", "--restricted") | _s(
    "--verbose", "--noediting", "--debugger", "--pretty-print"
)
_SHELL_LONG_VALUED = _s("--rcfile", "--init-file")

_XARGS = WrapperSpec(
    attached_only="eil",
    flags="0rtpxo",
    valued="adEILnPseil",
    long_flags=_s("--null", "--no-run-if-empty", "--verbose", "--interactive", "--exit")
    | _s("--open-tty", "--show-limits", "--max-lines", "--replace", "--eof"),
    long_valued=_s("--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars")
    | _s("--process-slot-var"),
)
WATCH = WrapperSpec(
    flags="bcCdegptwx",
    valued="nq",
    long_flags=_s("--beep", "--color", "--no-color", "--differences", "--errexit", "--chgexit")
    | _s("--precise", "--no-title", "--no-wrap", "--exec"),
    long_valued=_s("--interval", "--equexit"),
)

_FIND_EXEC = _s("-exec", "-execdir", "-ok", "-okdir")
_FIND_WRITES_VALUE = _s("-fprint", "-fprint0", "-fls")
_FIND_LEADING = _s("-H", "-L", "-P")


def run_shell(plain: Invocation, name: str, code: Code) -> Invocation:
    args = plain.argv[1:]
    runs_code = False
    i = 0
    reads: list[str] = []
    while i < len(args):
        arg = args[i]
        if not is_literal(arg):
            return unparsed(plain, "wrapper", f"cannot tell what {name} runs")
        if arg == "--":
            i += 1
            break
        if arg.startswith("--"):
            if arg in _SHELL_LONG_VALUED and i + 1 < len(args):
                reads.append(args[i + 1])
                i += 2
                continue
            if arg not in _SHELL_LONG_FLAGS:
                return unparsed(plain, "wrapper", f"cannot tell what {name} runs: {arg}")
            i += 1
            continue
        if arg[:1] in "-+" and len(arg) > 1:
            runs_code = runs_code or (arg[0] == "-" and "c" in arg[1:])
            i += 2 if ("o" in arg[1:] or "O" in arg[1:]) else 1
            continue
        break
    if runs_code:
        if i >= len(args):
            return unparsed(plain, "wrapper", f"{name} -c without a command")
        return code(args[i])
    if i < len(args):
        reads.append(args[i])
    return Invocation(plain.argv, plain.assignments, plain.redirects, reads=tuple(reads))


def run_xargs(plain: Invocation, args: tuple[str, ...], inner: Inner) -> Invocation:
    parsed = parse_options(args, _XARGS)
    if isinstance(parsed, str):
        return unparsed(plain, "wrapper", f"cannot tell what xargs runs: {parsed}")
    replace: str | None = None
    reads: list[str] = []
    for name, value in parsed.options:
        if name in ("-I", "-i", "--replace"):
            replace = value or "{}"
        elif name in ("-a", "--arg-file") and value is not None:
            reads.append(value)
    command = list(args[parsed.rest :]) or ["echo"]
    if replace:
        command = [w.replace(replace, DYN) for w in command]
    else:
        command.append(DYN)  # the arguments read from the input
    if not is_literal(command[0]):
        return unparsed(plain, "wrapper", "xargs runs a program whose name is not a literal")
    return Invocation(
        plain.argv,
        plain.assignments,
        plain.redirects,
        role="wrapper",
        inner=(inner(command),),
        reads=tuple(reads),
    )


def run_find(plain: Invocation, args: tuple[str, ...], inner: Inner) -> Invocation:
    i = 0
    while i < len(args) and (args[i] in _FIND_LEADING or args[i].startswith(("-D", "-O"))):
        i += 2 if args[i] == "-D" else 1
    starts: list[str] = []
    while i < len(args) and not args[i].startswith(("-", DYN)) and args[i] not in ("(", "!"):
        starts.append(args[i])
        i += 1
    own: list[str] = ["find", *starts]
    runs: list[Invocation] = []
    writes: list[str] = []
    problems: list[str] = []
    deletes = False
    while i < len(args):
        word = args[i]
        i += 1
        if not is_literal(word):
            problems.append("cannot tell what find runs: an expression word is not a literal")
        if word in _FIND_EXEC:
            clause: list[str] = []
            while i < len(args) and not (
                args[i] == ";" or (args[i] == "+" and clause and clause[-1] == "{}")
            ):
                clause.append(args[i])
                i += 1
            if i >= len(args):
                problems.append(f"find {word} without its ';'")
            i += 1
            if not clause:
                problems.append(f"find {word} without a command")
                continue
            runs.append(inner([w.replace("{}", DYN) for w in clause]))
            continue
        own.append(word)
        if word in _FIND_WRITES_VALUE or word == "-fprintf":
            if i < len(args):
                writes.append(args[i])
        elif word == "-delete":
            deletes = True
    if deletes:
        writes.extend(starts or ["."])
    return Invocation(
        plain.argv,
        plain.assignments,
        plain.redirects,
        own=tuple(own),
        inner=tuple(runs),
        reads=tuple(starts or ["."]),
        writes=tuple(writes),
        problems=tuple(problems),
    )


def run_su(plain: Invocation, name: str, args: tuple[str, ...], code: Code) -> Invocation:
    # su reorders its arguments, so -c may come after the user name.
    positionals = 0
    for i, arg in enumerate(args):
        command: str | None = None
        if arg.startswith(("--command=", "--session-command=")):
            command = arg.partition("=")[2]
        elif arg in ("--command", "--session-command"):
            command = args[i + 1] if i + 1 < len(args) else ""
        elif arg.startswith("-") and not arg.startswith("--") and "c" in arg:
            attached = arg[arg.index("c") + 1 :]
            command = attached or (args[i + 1] if i + 1 < len(args) else "")
        elif not arg.startswith("-"):
            positionals += 1
        if command is not None:
            return code(command, "privileged")
    if positionals > 1:
        return unparsed(plain, "privileged", f"cannot tell what {name} runs")
    return Invocation(plain.argv, plain.assignments, plain.redirects, role="privileged")
