"""corepack as what it does: `corepack TOOL[@SPEC] ARGS` starts npm, npx, pnpm, pnpx or yarn
with ARGS, judged as `TOOL ARGS` typed (`corepack pnpx X` is the fetch `pnpx X` is; deny
and ask rules on npx or `npm exec` hold through it); a SPEC naming a place (`pnpm@https://
host/x.tgz`, a path) fetches the tool itself from there, code not seen; `corepack use/up`
runs the tool's install. Its own commands write: `enable`/`disable` put or remove shims in
`--install-directory DIR` (by default where corepack is installed, outside the workspace),
`pack -o FILE` a tarball, `install -g`/`prepare --activate`/`hydrate --activate` set the tool
every later command starts. A command it does not have is not knowing what it does."""

from __future__ import annotations

import re
from collections.abc import Callable

from tether.permissions.program_use import ProgramUse
from tether.permissions.runner_tables import COREPACK_TOOLS
from tether.permissions.script import Invocation
from tether.permissions.shell_words import is_literal, program_name, readable

Inner = Callable[..., Invocation]

_VERSION = re.compile(r"[A-Za-z0-9._+-]*")
"""A spec fetched from the tool's registry by version or tag (`9.1.0`, `latest`,
`4.1.0+sha512.abc`); anything else (`https://`, `file:`, a path) is a place."""
_DIRECTORY = ("--install-directory",)
_OUTPUT = ("-o", "--output")
_HARMLESS = frozenset({"--version", "-v", "-h", "--help", "help"})
_CACHE = frozenset({"clean", "clear"})
_SHIMS = "the directory corepack is installed in, outside the workspace"
_ACTIVATED = "corepack sets the package manager every later command starts, outside the workspace"


def corepack_launch(
    plain: Invocation, inner: Inner, args: tuple[str, ...], *, fetches: bool
) -> Invocation | None:
    """`corepack ARGS` with the tool it starts as its inner command (`use`/`up`: its
    install); None when it starts none (its own files: `corepack_use`)."""
    first = args[0] if args and is_literal(args[0]) else ""
    tool = first.partition("@")[0]
    if tool in COREPACK_TOOLS and not fetches:
        # A fetch seen through corepack (`fetches`) is judged on its words, as a rule naming
        # it (`Bash(corepack pnpm dlx *)`) does: what it runs is not seen either way.
        ran = (inner((tool, *args[1:]), plain.assignments),)
    elif first in ("use", "up"):
        tools = {s.partition("@")[0] for s in _specs(args[1:])} & COREPACK_TOOLS or {"npm"}
        ran = tuple(inner((t, "install"), plain.assignments) for t in sorted(tools))
    else:
        return None
    return Invocation(plain.argv, plain.assignments, plain.redirects, inner=ran)


def corepack_use(argv: tuple[str, ...]) -> ProgramUse | None:
    """What corepack itself writes, fetches from a place, or does not tell; None for another
    program or when it does none of these (`corepack pnpm install`, `corepack --version`)."""
    if not argv or not is_literal(argv[0]) or program_name(argv[0]) != "corepack":
        return None
    args = argv[1:]
    if not args or args[0] in _HARMLESS:
        return None
    first, rest = args[0], args[1:]
    if not is_literal(first):
        return ProgramUse(unseen=("corepack runs a tool or command not known before it runs",))
    tool, at, spec = first.partition("@")
    if tool in COREPACK_TOOLS:
        return ProgramUse(unseen=_fetched(tool, spec)) if at and _fetched(tool, spec) else None
    if first in ("enable", "disable"):
        directory = tuple(_values(rest, _DIRECTORY))
        if directory:
            return ProgramUse(writes=directory, changes=True)
        return ProgramUse(asks=(f"corepack {first} writes its shims in {_SHIMS}",), changes=True)
    specs = _specs(rest)
    fetched = tuple(p for s in specs for p in _fetched(*s.partition("@")[::2]))
    if first in ("pack", "prepare"):
        written = tuple(v for v in _values(rest, _OUTPUT) if "@" not in v)
        written = written or (("corepack.tgz",) if first == "pack" else ())
        asks = (_ACTIVATED,) if first == "prepare" and "--activate" in rest else ()
        return ProgramUse(writes=written, unseen=fetched, asks=asks, changes=True)
    if first in ("install", "use", "up", "hydrate"):
        activate = first == "hydrate" or any(a in ("-g", "--global", "--activate") for a in rest)
        asks = (_ACTIVATED,) if activate else ()
        # `hydrate ARCHIVE`: the tools it unpacks from there are code.
        loads = tuple(a for a in rest if not a.startswith("-")) if first == "hydrate" else ()
        return ProgramUse(unseen=fetched, asks=asks, loads=loads, changes=True)
    if first == "cache" and rest[:1] and rest[0] in _CACHE:
        return None
    return ProgramUse(unseen=(f"corepack has no command `{readable(first)}` tether knows",))


def _fetched(tool: str, spec: str) -> tuple[str, ...]:
    if not spec or (is_literal(spec) and _VERSION.fullmatch(spec)):
        return ()
    where = readable(spec) if is_literal(spec) else "a place known only as it runs"
    return (f"corepack fetches {tool} from {where}: code tether cannot see",)


def _specs(args: tuple[str, ...]) -> list[str]:
    """The tool specs among `args` (`pnpm@9`, `yarn@https://...`), not options' values."""
    found: list[str] = []
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
        elif arg in _OUTPUT:
            skip = i + 1 < len(args) and "@" not in args[i + 1]
        elif not arg.startswith("-") and arg.partition("@")[0] in COREPACK_TOOLS:
            found.append(arg)
        elif not arg.startswith("-") and not is_literal(arg):
            found.append(f"npm@{arg}")  # a spec known only as it runs: any place
    return found


def _values(args: tuple[str, ...], options: tuple[str, ...]) -> list[str]:
    """The values of `options` in `args` (`--opt V`, `--opt=V`, `-oV`)."""
    found: list[str] = []
    for i, arg in enumerate(args):
        name, eq, value = arg.partition("=")
        if name in options and eq:
            found.append(value)
        elif arg in options and i + 1 < len(args):
            found.append(args[i + 1])
        elif len(arg) > 2 and arg[:2] in options and not arg.startswith("--"):
            found.append(arg[2:])
    return found
