"""Looking through commands that run other commands: `timeout 5 rm x` runs `rm x`.

Wrappers (timeout, env, nice, xargs...), shells given code (`bash -c`, `eval`, `watch`),
privilege changes (sudo, su, doas) and `find -exec` become invocations whose `inner` holds what
they run, parsed again when it is shell code. An option not understood means not knowing what
runs: the invocation carries a problem and is asked.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from tether.permissions.runners import SHELLS, WATCH, run_find, run_shell, run_su, run_xargs
from tether.permissions.script import Invocation, Redirect, Role, Script
from tether.permissions.shell_words import is_literal, program_name
from tether.permissions.wrapper_options import WrapperSpec, parse_options, unparsed
from tether.permissions.wrapper_options import names as _s

ParseCode = Callable[[str, int], Script]
MAX_DEPTH = 12
"""Nesting beyond this (`bash -c "bash -c '...'"` and so on) is asked, not followed."""

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=", re.DOTALL)

WRAPPERS: Mapping[str, WrapperSpec] = {
    "timeout": WrapperSpec(
        flags="v",
        valued="sk",
        long_flags=_s("--preserve-status", "--foreground", "--verbose"),
        long_valued=_s("--signal", "--kill-after"),
        leading_positionals=1,
    ),
    "time": WrapperSpec(
        flags="pvaq",
        valued="fo",
        long_valued=_s("--format", "--output"),
        writes=_s("-o", "--output"),
    ),
    "nice": WrapperSpec(valued="n", long_valued=_s("--adjustment"), numeric=True),
    "nohup": WrapperSpec(),
    "env": WrapperSpec(
        flags="i0v",
        valued="uCS",
        long_flags=_s("--ignore-environment", "--null", "--debug"),
        long_valued=_s("--unset", "--chdir", "--split-string"),
        assignments=True,
        unsupported=_s("-C", "--chdir", "-S", "--split-string"),
    ),
    "command": WrapperSpec(flags="pvV", no_command=_s("-v", "-V")),
    "builtin": WrapperSpec(),
    "exec": WrapperSpec(flags="cl", valued="a"),
    "stdbuf": WrapperSpec(valued="ioe", long_valued=_s("--input", "--output", "--error")),
    "ionice": WrapperSpec(flags="t", valued="cnpPu", no_command=_s("-p", "-P", "-u")),
    "setsid": WrapperSpec(flags="cfw", long_flags=_s("--ctty", "--fork", "--wait")),
    "busybox": WrapperSpec(),
    "coproc": WrapperSpec(),
    "sudo": WrapperSpec(
        role="privileged",
        flags="AbEHKklnPSsivVeh",
        valued="ugCDprtUTR",
        long_flags=_s("--preserve-env", "--login", "--shell", "--non-interactive", "--stdin")
        | _s("--background", "--askpass", "--set-home", "--reset-timestamp", "--edit")
        | _s("--remove-timestamp", "--preserve-groups", "--bell", "--list", "--validate")
        | _s("--version", "--help"),
        long_valued=_s("--user", "--group", "--close-from", "--chdir", "--prompt", "--role")
        | _s("--type", "--other-user", "--command-timeout", "--chroot", "--host"),
        assignments=True,
        no_command=_s("-l", "-v", "-V", "-e", "-h", "-K", "--list", "--validate", "--version")
        | _s("--edit", "--help", "--remove-timestamp"),
        unsupported=_s("-D", "--chdir", "-R", "--chroot"),
        shell_code=_s("-s", "-i", "--shell", "--login"),
    ),
    "doas": WrapperSpec(role="privileged", flags="ns", valued="uC", no_command=_s("-C", "-s")),
    "pkexec": WrapperSpec(
        role="privileged",
        long_flags=_s("--disable-internal-agent", "--keep-cwd"),
        long_valued=_s("--user"),
    ),
}


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
    if depth > MAX_DEPTH:
        return Invocation(argv, assignments, redirects, problems=("commands nested too deeply",))
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
        writes = tuple(v for n, v in parsed.options if v is not None and n in spec.writes)
        rest = parsed.rest + spec.leading_positionals
        extra: list[tuple[str, str]] = []
        while spec.assignments and rest < len(args) and _ASSIGNMENT.match(args[rest]):
            key, _, value = args[rest].partition("=")
            extra.append((key.rstrip("+"), value))
            rest += 1
        if rest >= len(args):
            return plain if not extra else Invocation(argv, (*assignments, *extra), redirects)
        if names & spec.shell_code:
            wrapped = code(" ".join(args[rest:]), spec.role)
            return Invocation(
                argv,
                (*assignments, *extra),
                redirects,
                role=spec.role,
                inner=wrapped.inner,
                problems=wrapped.problems,
                writes=writes,
            )
        return Invocation(
            argv,
            assignments,
            redirects,
            role=spec.role,
            inner=(inner(args[rest:], tuple(extra)),),
            writes=writes,
        )
    if name in SHELLS:
        return run_shell(plain, name, code)
    if name == "eval":
        return code(" ".join(args)) if args else plain
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
        return run_su(plain, name, args, code)
    return plain
