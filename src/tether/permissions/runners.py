"""Commands that run code or other commands in their own way: xargs, find -exec,
su/runuser/sg -c, script -c, flock, ssh's remote command, watch (shells are in shells.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from tether.permissions.script import Invocation, Produced
from tether.permissions.shell_words import DYN, is_literal
from tether.permissions.wrapper_options import WrapperSpec, parse_options, unparsed
from tether.permissions.wrapper_options import names as _s

Code = Callable[..., Invocation]
Inner = Callable[..., Invocation]
"""The invocation of a wrapped command's words (and the variables set for it)."""


XARGS = WrapperSpec(
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


def run_xargs(plain: Invocation, args: tuple[str, ...], inner: Inner) -> Invocation:
    parsed = parse_options(args, XARGS)
    if isinstance(parsed, str):
        return unparsed(plain, "wrapper", f"cannot tell what xargs runs: {parsed}")
    replace: str | None = None
    reads: list[str] = []
    variables: list[tuple[str, str]] = []
    for name, value in parsed.options:
        if name in ("-I", "-i", "--replace"):
            replace = value or "{}"
        elif name in ("-a", "--arg-file") and value is not None:
            reads.append(value)
        elif name == "--process-slot-var" and value is not None:
            # Each command gets NAME=<slot number> in its environment: an assignment of
            # NAME, as dangerous as `NAME=0 cmd` (GIT_CONFIG_GLOBAL, BASH_ENV, HOME...).
            variables.append((value, DYN))
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
        inner=(inner(command, tuple(variables)),),
        reads=tuple(reads),
    )


def run_find(plain: Invocation, args: tuple[str, ...], inner: Inner) -> Invocation:
    i = 0
    follows = False
    while i < len(args) and (args[i] in _FIND_LEADING or args[i].startswith(("-D", "-O"))):
        follows = follows or args[i] == "-L"
        i += 2 if args[i] == "-D" else 1
    starts: list[str] = []
    while i < len(args) and not args[i].startswith(("-", DYN)) and args[i] not in ("(", "!"):
        starts.append(args[i])
        i += 1
    own: list[str] = ["find", *starts]
    expression = args[i:]
    found = found_paths(starts, expression)
    if found is not None and follows:
        found = dataclasses.replace(found, follows=True)
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
            run = inner([w.replace("{}", DYN) for w in clause])
            if word.endswith("dir"):  # `-execdir`, `-okdir`: in each found file's directory
                run = dataclasses.replace(run, elsewhere=True)
            if found is not None and all(
                w == "{}" or ("{}" not in w and is_literal(w)) for w in clause
            ):
                run = dataclasses.replace(run, produced=found)
            runs.append(run)
            continue
        own.append(word)
        if word in _FIND_WRITES_VALUE or word == "-fprintf":
            if i < len(args):
                writes.append(args[i])
        elif word == "-delete":
            deletes = True
        elif word == "-files0-from" and i < len(args):
            starts += [args[i], DYN]  # the list file, and the starting points it names
    deleted = _deleted(starts, expression, follows) if deletes else None
    if deleted is not None:
        # `find . -name '*.pyc' -delete` deletes the paths its name tests pick, judged from
        # the disk as find's `{}` is (produced_paths.py); not every path below the start.
        writes.append(DYN)
    elif deletes:
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
        produced=deleted,
    )


def _deleted(starts: list[str], expression: tuple[str, ...], follows: bool) -> Produced | None:
    """What `-delete` deletes when it ends an expression of name tests (a positive one among
    them): the paths they pick. None when it may be more (`-delete` before a test deletes
    whatever reaches it; `-o`; `-L`)."""
    if follows or expression[-1:] != ("-delete",) or expression.count("-delete") != 1:
        return None
    found = found_paths(starts, expression[:-1])
    if found is None or not any(not negated for _, _, negated in found.tests):
        return None
    return found


_FIND_TESTS = frozenset({"-type", "-maxdepth", "-mindepth"})
_FIND_NAMING = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename"})
"""Tests on a path's name, evaluated on the names found on the disk (produced_paths.py)."""
_FIND_NARROWING = frozenset(
    {"-regex", "-iregex", "-xtype", "-newer", "-mtime", "-mmin", "-atime", "-amin", "-ctime"}
    | {"-cmin", "-size", "-perm", "-user", "-group", "-uid", "-gid", "-links", "-inum"}
    | {"-samefile", "-lname", "-ilname"}
)
"""Other tests taking a value, that only narrow what find names (negated too): the paths
left are among those its name tests give (with one of those, not alone)."""
_FIND_NARROWING_FLAGS = frozenset(
    {"-empty", "-readable", "-writable", "-executable", "-nouser", "-nogroup", "-true"}
    | {"-xdev", "-mount", "-depth", "-ignore_readdir_race", "-noleaf"}
)
_FIND_NOT = frozenset({"!", "-not"})
_FIND_AND = frozenset({"-a", "-and"})


def found_paths(starts: list[str], expression: tuple[str, ...]) -> Produced | None:
    """What `{}` stands for when one literal starting point is searched with tests joined by
    `-a`, each negated or not, that are name tests (`-name`, `-iname`, `-path`...: judged on
    each name below the start now) or tests that only narrow (`-type`, `-newer`, `-size`...:
    then the paths are among those the name tests give, which must include a positive one).
    find's `*` matches `.env`; with no test but `-maxdepth`, every path below. None when the
    expression may pick anything else (`-o`, `(`, `-L`...)."""
    if len(starts) > 1 or any(not is_literal(s) for s in starts):
        return None
    tests: list[tuple[str, str, bool]] = []
    narrowed = False
    i = 0
    while i < len(expression):
        word = expression[i]
        if word in _FIND_EXEC:
            i += 1  # to the end of its clause: its command runs on what the tests passed
            while i < len(expression) and expression[i] not in (";", "+"):
                i += 1
            i += 1
            continue
        if word in _FIND_AND or word in _FIND_NARROWING_FLAGS:
            narrowed = narrowed or word in _FIND_NARROWING_FLAGS
            i += 1
            continue
        negated = word in _FIND_NOT
        test = expression[i + 1] if negated and i + 1 < len(expression) else word
        if negated and test in _FIND_NARROWING_FLAGS:
            narrowed, i = True, i + 2
            continue
        at = i + 1 if negated else i
        if test not in _FIND_TESTS | _FIND_NAMING | _FIND_NARROWING or at + 1 >= len(expression):
            return None
        value = expression[at + 1]
        if not is_literal(value):
            return None
        if test in _FIND_NAMING:
            tests.append((test, value, negated))
        elif test in _FIND_NARROWING or test == "-type":
            narrowed = True
        i = at + 2
    if narrowed and not any(not negated for _, _, negated in tests):
        return None  # `find . -newer x`: which paths is not known from their names
    start = starts[0] if starts else "."
    return Produced(start, "*", deep=True, dots=True, blanks=False, tests=tuple(tests))


def run_su(
    plain: Invocation, name: str, args: tuple[str, ...], code: Code, inner: Inner
) -> Invocation:
    # su reorders its arguments, so -c may come after the user name.
    if name == "runuser" and any(a in ("-u", "--user") or a.startswith("--user=") for a in args):
        # `runuser -u USER [--] CMD ARGS`: the command runs as given, not through a shell.
        return _runuser_command(plain, args, inner)
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
    return unparsed(plain, "privileged", f"{name} without -c runs a shell on its input")


_RUNUSER = WrapperSpec(
    role="privileged",
    flags="lmpfPhV",
    valued="ugGwsZ",
    long_flags=_s("--login", "--preserve-environment", "--pty", "--help", "--version"),
    long_valued=_s("--user", "--group", "--supp-group", "--whitelist-environment", "--shell"),
    unsupported=_s("-s", "--shell", "-l", "--login", "-c", "--command"),
)


def _runuser_command(plain: Invocation, args: tuple[str, ...], inner: Inner) -> Invocation:
    parsed = parse_options(args, _RUNUSER)
    names = {n for n, _ in parsed.options} if not isinstance(parsed, str) else set[str]()
    if isinstance(parsed, str) or names & _RUNUSER.unsupported:
        return unparsed(plain, "privileged", "cannot tell what runuser runs")
    if parsed.rest >= len(args):
        return unparsed(plain, "privileged", "runuser without a command runs a shell on its input")
    return Invocation(
        plain.argv,
        plain.assignments,
        plain.redirects,
        role="privileged",
        inner=(inner(args[parsed.rest :]),),
    )


def run_sg(plain: Invocation, args: tuple[str, ...], code: Code) -> Invocation:
    """`sg [-] GROUP [-c] COMMAND`: COMMAND is given to /bin/sh -c."""
    rest = list(args[1:] if args[:1] == ("-",) else args)
    if not rest:
        return plain  # prints nothing useful without a group
    command = rest[2:] if rest[1:2] == ["-c"] else rest[1:]
    if not command:
        return unparsed(plain, "privileged", "sg without a command runs a shell on its input")
    return code(" ".join(command), "privileged")


_SCRIPT = WrapperSpec(
    flags="aefqhV",
    valued="IOBTmEoct",
    attached_only="t",
    long_flags=_s("--append", "--return", "--flush", "--force", "--quiet", "--help")
    | _s("--version", "--timing"),
    long_valued=_s("--log-in", "--log-out", "--log-io", "--log-timing", "--logging-format")
    | _s("--echo", "--output-limit", "--command"),
)
_SCRIPT_LOGS = _s("-I", "-O", "-B", "-T", "-t", "--log-in", "--log-out", "--log-io")


def run_script(plain: Invocation, args: tuple[str, ...], code: Code) -> Invocation:
    """util-linux `script [options] [FILE]`: `-c CMD` is shell code (options may follow FILE,
    getopt reorders them); without it, a shell reads the input. FILE (`typescript` by
    default) and the logs are written."""
    options: list[tuple[str, str | None]] = []
    files: list[str] = []
    i = 0
    while i < len(args):
        if args[i] == "--":
            files += args[i + 1 :]
            break
        if not args[i].startswith("-") or args[i] == "-":
            files.append(args[i])
            i += 1
            continue
        parsed = parse_options(args[i:], _SCRIPT)
        if isinstance(parsed, str):
            return unparsed(plain, "wrapper", f"cannot tell what script runs: {parsed}")
        options += parsed.options
        i += parsed.rest
        if args[i - 1] == "--":
            i -= 1  # the `--` itself: what follows is files
    commands = [v for n, v in options if n in ("-c", "--command") and v is not None]
    writes = [v for n, v in options if n in _SCRIPT_LOGS and v is not None]
    writes += files[:1] or ["typescript"]
    if not commands:
        return unparsed(plain, "wrapper", "script without -c runs a shell on its input")
    ran = code(commands[-1])
    return Invocation(
        plain.argv,
        plain.assignments,
        plain.redirects,
        role="wrapper",
        inner=ran.inner,
        problems=ran.problems,
        writes=tuple(writes),
    )


_FLOCK = WrapperSpec(
    flags="sxenuoFhV",
    valued="wE",
    long_flags=_s("--shared", "--exclusive", "--unlock", "--nonblock", "--nb", "--close")
    | _s("--no-fork", "--verbose", "--help", "--version"),
    long_valued=_s("--timeout", "--wait", "--conflict-exit-code"),
    leading_positionals=1,
    positionals_written=True,
)


def run_flock(plain: Invocation, args: tuple[str, ...], code: Code, inner: Inner) -> Invocation:
    """`flock [options] FILE CMD ARGS`, `flock [options] FILE -c CMD` (shell code) or
    `flock [options] FD` (nothing runs)."""
    parsed = parse_options(args, _FLOCK)
    if isinstance(parsed, str):
        return unparsed(plain, "wrapper", f"cannot tell what flock runs: {parsed}")
    lock = parsed.rest + _FLOCK.leading_positionals
    rest = args[lock:]
    if not rest:
        return plain  # `flock FD`: a descriptor already open
    # The lock file is opened, created empty when missing.
    written = tuple(args[parsed.rest : lock]) if _FLOCK.positionals_written else ()
    if rest[0] in ("-c", "--command") or rest[0].startswith("--command="):
        text = rest[0].partition("=")[2] if "=" in rest[0] else " ".join(rest[1:2])
        ran = code(text)
        return dataclasses.replace(ran, writes=(*ran.writes, *written))
    return Invocation(
        plain.argv,
        plain.assignments,
        plain.redirects,
        role="wrapper",
        inner=(inner(rest),),
        writes=written,
    )


REMOTE_RUNNERS = frozenset({"ssh"})
"""Programs whose inner commands run on another machine: a rule naming the whole command
allows them there (bash_policy), as for sudo."""
_SSH_FLAGS = "46AaCfGgKkMNnqsTtVvXxYy"
_SSH_VALUED = "BbcDEeFIiJLlmOoPpQRSWw"


def run_ssh(plain: Invocation, args: tuple[str, ...], code: Code) -> Invocation:
    """`ssh [options] DESTINATION [COMMAND...]`: the command words are joined and run by the
    remote user's shell, so they are judged as shell code (ssh's own options are judged by its
    entry in program_commands.py)."""
    spec = WrapperSpec(flags=_SSH_FLAGS, valued=_SSH_VALUED)
    parsed = parse_options(args, spec)
    if isinstance(parsed, str):
        return unparsed(plain, "command", f"cannot tell what ssh runs: {parsed}")
    command = args[parsed.rest + 1 :]
    if any(n in ("-N", "-W") for n, _ in parsed.options) or parsed.rest >= len(args):
        return plain
    if not command:
        return unparsed(plain, "command", "ssh without a command runs a remote shell on its input")
    ran = code(" ".join(command), "command")
    return Invocation(
        plain.argv,
        plain.assignments,
        plain.redirects,
        inner=ran.inner,
        problems=ran.problems,
    )
