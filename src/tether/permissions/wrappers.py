"""Looking through commands that run other commands: `timeout 5 rm x` runs `rm x`.

Wrappers (timeout, env, nice, xargs...), shells given code (`bash -c`, `eval`, `watch`),
privilege changes (sudo, su, doas) and `find -exec` become invocations whose `inner` holds what
they run, parsed again when it is shell code. An option not understood means not knowing what
runs: the invocation carries a problem and is asked.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence

from tether.permissions.dangerous_variables import SAFETY_VARIABLES, is_dangerous_variable
from tether.permissions.deno_options import printing_options_off
from tether.permissions.launchers import launch
from tether.permissions.make_eval import eval_commands, is_make
from tether.permissions.runners import (
    WATCH,
    Inner,
    run_find,
    run_flock,
    run_script,
    run_sg,
    run_ssh,
    run_su,
    run_xargs,
)
from tether.permissions.script import Invocation, Redirect, Role, Script
from tether.permissions.shell_words import DYN, is_literal, program_name
from tether.permissions.shells import GENERATED_CODE, SHELLS, run_shell
from tether.permissions.wrapper_options import (
    WrapperSpec,
    parse_options,
    split_env_options,
    unparsed,
)
from tether.permissions.wrapper_table import WRAPPERS

ParseCode = Callable[[str, int], Script]
MAX_DEPTH = 100
"""How deeply a command may nest (syntax tree levels, wrappers, code strings such as
`bash -c "bash -c '...'"`, `$($(...))`) before it is too deeply nested to judge. It bounds the
parser's recursion, so no input can exhaust the stack."""

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=", re.DOTALL)


def look_through(
    argv: tuple[str, ...],
    assignments: tuple[tuple[str, str], ...],
    redirects: tuple[Redirect, ...],
    *,
    parse_code: ParseCode,
    depth: int,
) -> Invocation:
    """The invocation for one simple command, wrappers opened up."""
    plain = Invocation(argv, assignments, redirects)
    if not argv:
        return plain
    if not is_literal(argv[0]):
        return Invocation(
            argv, assignments, redirects, problems=("the program name is not a literal",)
        )
    if _ASSIGNMENT.match(argv[0]):
        # `timeout 5 PATH=x ls` runs a program named `PATH=x`, which a reader takes for an
        # assignment: not what it seems either way.
        return Invocation(
            argv, assignments, redirects, problems=("a program name that looks like an assignment",)
        )
    if depth > MAX_DEPTH:
        return Invocation(argv, assignments, redirects, problems=("too deeply nested to judge",))
    name = program_name(argv[0])
    args = argv[1:]

    def inner(words: Sequence[str], extra: tuple[tuple[str, str], ...] = ()) -> Invocation:
        return look_through(tuple(words), extra, (), parse_code=parse_code, depth=depth + 1)

    def code(text: str, role: Role = "wrapper") -> Invocation:
        if not is_literal(text):
            return unparsed(plain, role, f"{name} runs code that is not a literal")
        script = parse_code(text, depth + 1)
        return Invocation(
            argv,
            assignments,
            redirects,
            role=role,
            inner=script.invocations,
            problems=script.problems,
        )

    if name == "env":
        split = split_env_options(args)
        if isinstance(split, str):
            return unparsed(plain, "wrapper", f"cannot tell what env runs: {split}")
        if split is not None:
            return Invocation(
                argv,
                assignments,
                redirects,
                role="wrapper",
                inner=(inner(("env", *split)),),
            )
    if name in WRAPPERS:
        spec = WRAPPERS[name]
        parsed = parse_options(args, spec)
        if isinstance(parsed, str):
            return unparsed(plain, spec.role, f"cannot tell what {name} runs: {parsed}")
        names = {n for n, _ in parsed.options}
        if names & spec.unsupported:
            found = sorted(names & spec.unsupported)[0]
            return unparsed(plain, spec.role, f"cannot tell what {name} runs: {found}")
        if names & spec.no_command:
            return plain
        login = "-l" in names or any(
            n == "-a" and (v or "").startswith("-") for n, v in parsed.options
        )
        if (
            name == "exec"
            and login
            and program_name(args[parsed.rest] if parsed.rest < len(args) else "") in SHELLS
        ):
            # `exec -l bash`, `exec -a -bash bash`: a login shell, which runs the profiles.
            return unparsed(plain, "wrapper", "exec starts a login shell, which runs the profiles")
        piped = [v for n, v in parsed.options if n in spec.pipe_valued and v and v[0] in "|!"]
        writes = tuple(
            v for n, v in parsed.options if v is not None and n in spec.writes and v not in piped
        )
        reads = tuple(v for n, v in parsed.options if v is not None and n in spec.reads)
        rest = parsed.rest
        changed = _environment_changes(name, parsed.options, spec)
        if name == "env" and rest < len(args) and args[rest] == "-":
            changed.append(_CLEARED.format(how="env -"))  # a lone `-` is `-i`
            rest += 1

        def done(result: Invocation) -> Invocation:
            if not changed:
                return result
            return dataclasses.replace(result, problems=(*result.problems, *changed))

        shape = spec.positional_shape
        for _ in range(spec.leading_positionals):
            if shape is not None and (rest >= len(args) or not shape.fullmatch(args[rest])):
                break
            if spec.positionals_written and rest < len(args):
                writes += (args[rest],)
            rest += 1
        extra: list[tuple[str, str]] = []
        while spec.assignments and rest < len(args) and _ASSIGNMENT.match(args[rest]):
            key, _, value = args[rest].partition("=")
            extra.append((key.rstrip("+"), value))
            rest += 1
        runs_piped = [code(v[1:]) for v in piped]
        if rest >= len(args) and spec.default_shell:
            shell = unparsed(
                plain, spec.role, f"{name} without a command runs a shell on its input"
            )
            return done(dataclasses.replace(shell, reads=reads, writes=writes))
        if rest >= len(args) and not runs_piped:
            return done(
                Invocation(argv, (*assignments, *extra), redirects, reads=reads, writes=writes)
            )
        if names & spec.shell_code:
            wrapped = code(" ".join(args[rest:]), spec.role)
            return done(
                Invocation(
                    argv,
                    (*assignments, *extra),
                    redirects,
                    role=spec.role,
                    inner=wrapped.inner,
                    problems=wrapped.problems,
                    reads=reads,
                    writes=writes,
                )
            )
        command = (inner(args[rest:], tuple(extra)),) if rest < len(args) else ()
        return done(
            Invocation(
                argv,
                assignments,
                redirects,
                role=spec.role,
                inner=(*command, *(i for r in runs_piped for i in r.inner)),
                reads=reads,
                writes=writes,
                problems=tuple(p for r in runs_piped for p in r.problems),
            )
        )
    if name in SHELLS:
        return run_shell(plain, name, code)
    if (
        name in ("source", ".")
        and args
        and (not is_literal(args[0]) or args[0].startswith(GENERATED_CODE))
    ):
        return unparsed(plain, "command", f"{name} runs code that another command produces")
    if name == "alias":
        return _aliases(plain, args, code)
    if name in ("mapfile", "readarray"):
        # `-C CALLBACK` is code, run every `-c` lines.
        callbacks = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-C"]
        callbacks += [a[2:] for a in args if a.startswith("-C") and len(a) > 2]
        return code(callbacks[0], "command") if callbacks else plain
    if name == "hash":
        # `hash -p FILE NAME`: NAME then runs FILE.
        files = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "-p"]
        if not files:
            return plain
        return Invocation(argv, assignments, redirects, inner=tuple(inner((f, DYN)) for f in files))
    if name == "enable" and any(a.startswith("-") and "f" in a for a in args):
        return unparsed(plain, "command", "enable -f loads a builtin from a shared library")
    if name == "eval":
        # bash's eval takes `--` (dropped) and no options: `eval -x` runs nothing.
        words = args[1:] if args[:1] == ("--",) else args
        if words is args and args and args[0].startswith("-") and args[0] != "-":
            return plain
        return code(" ".join(words)) if words else plain
    if name == "trap":
        action = args[1:] if args[:1] == ("--",) else args
        if not action or action[0].startswith("-") or action[0] == "":
            return plain
        return code(action[0], "command")
    if name == "xargs":
        return run_xargs(plain, args, inner)
    if name == "find":
        return run_find(plain, args, inner)
    if name == "watch":
        parsed = parse_options(args, WATCH)
        if isinstance(parsed, str):
            return unparsed(plain, "wrapper", f"cannot tell what watch runs: {parsed}")
        if parsed.rest >= len(args):
            return plain
        if any(n in ("-x", "--exec") for n, _ in parsed.options):
            return Invocation(
                argv, assignments, redirects, role="wrapper", inner=(inner(args[parsed.rest :]),)
            )
        return code(" ".join(args[parsed.rest :]))
    if name in ("su", "runuser"):
        return run_su(plain, name, args, code, inner)
    if name in _OWN_WAY:
        return _OWN_WAY[name](plain, args, code, inner)
    if name == "deno" and (quiet := printing_options_off(args)) is not None:
        # `deno -q task c` runs as `deno task c`, and every reader of deno's line reads that.
        command = (inner((argv[0], *quiet)),)
        return Invocation(argv, assignments, redirects, role="wrapper", inner=command)
    launched = launch(plain, inner, code)
    if launched is not None:
        return launched
    if is_make(name):
        # The recipes `--eval` text gives run through the shell: each command must be
        # allowed itself, as find -exec's (make_eval.eval_commands).
        commands, unknown = eval_commands(args)
        if unknown is not None:
            return unparsed(plain, "command", unknown)
        return code("\n".join(commands), "command") if commands else plain
    return plain


_CLEARED = (
    "`{how}` empties the environment, and with it what tether sets for safety "
    "(git's safe.bareRepository)"
)


def _environment_changes(
    program: str, options: Sequence[tuple[str, str | None]], spec: WrapperSpec
) -> list[str]:
    """What a wrapper's options take out of the command's environment, judged as `unset` is:
    a variable that changes what runs, or one tether sets for safety (`SAFETY_VARIABLES`),
    removed (`env -u GIT_CONFIG_COUNT`), or the whole environment emptied (`env -i`)."""
    found: list[str] = []
    for option, value in options:
        if option in spec.clears:
            found.append(_CLEARED.format(how=f"{program} {option}"))
        elif option in spec.unsets and value is not None:
            if not is_literal(value):
                found.append(f"removes a variable whose name is not a literal ({option})")
            elif is_dangerous_variable(value) or value in SAFETY_VARIABLES:
                found.append(f"removes {value}, which changes what programs run or load")
    return found


_OwnWay = Callable[[Invocation, tuple[str, ...], Callable[..., Invocation], Inner], Invocation]
_OWN_WAY: Mapping[str, _OwnWay] = {
    "sg": lambda plain, args, code, _: run_sg(plain, args, code),
    "script": lambda plain, args, code, _: run_script(plain, args, code),
    "flock": run_flock,
    "ssh": lambda plain, args, code, _: run_ssh(plain, args, code),
}
"""Runners with a grammar of their own (runners.py)."""


def _aliases(
    plain: Invocation, args: tuple[str, ...], code: Callable[..., Invocation]
) -> Invocation:
    """`alias ls='rm -rf x'`: the alias runs later, wherever its name is a command; its text
    is judged as code now."""
    if any(not is_literal(a) for a in args):
        return unparsed(plain, "command", "alias defines code that is not a literal")
    defined = [code(a.partition("=")[2], "command") for a in args if "=" in a]
    return Invocation(
        plain.argv,
        plain.assignments,
        plain.redirects,
        inner=tuple(i for d in defined for i in d.inner),
        problems=tuple(p for d in defined for p in d.problems),
    )
