"""Settings on a package manager's command line that take it outside the workspace, wherever
they stand before `--` (npm reads its options anywhere, as nopt does; pnpm and yarn too):
`-g`/`--global`/`--location=global` (npm, pnpm) and `yarn global` with a command that installs
or removes packages write the global prefix, outside the workspace (asked; with `--prefix
DIR` npm's global prefix is DIR, a write of it); `--registry URL` and npm's
`--@SCOPE:registry=URL` fetch packages, and the scripts they run, from a registry not the one
configured (asked); `--cache DIR`, `--cache-folder`, `--store-dir` are written."""

from __future__ import annotations

from tether.permissions.program_use import ProgramUse
from tether.permissions.runner_argv import npm_command
from tether.permissions.runner_tables import NPM, PNPM, YARN
from tether.permissions.shell_words import is_literal, program_name, readable

_MANAGERS = frozenset({"npm", "pnpm", "yarn", "yarnpkg"})
_GLOBAL_FLAGS = frozenset({"-g", "--global", "--location=global"})
_GLOBAL_WRITERS = frozenset(
    {"install", "ci", "uninstall", "update", "link", "unlink", "rebuild", "dedupe", "prune"}
    | {"install-test", "install-ci-test", "add", "remove", "rm", "up", "upgrade"}
)
"""Commands (npm's after its aliases are resolved, pnpm's and yarn's as typed) that install,
link or remove packages."""
_CACHES = frozenset({"--cache", "--cache-folder", "--store-dir", "--global-folder"})
_REGISTRY = "--registry"
_VALUED = {
    name: grammar.known() | _CACHES | {_REGISTRY, "--location"}
    for name, grammar in (("npm", NPM), ("pnpm", PNPM), ("yarn", YARN), ("yarnpkg", YARN))
}
"""Options whose value is the next word (not a positional: `npm --loglevel silly i`)."""


def manager_settings(argv: tuple[str, ...]) -> ProgramUse | None:
    """What `argv`'s global settings write or fetch from elsewhere; None when nothing."""
    if not argv or not is_literal(argv[0]) or program_name(argv[0]) not in _MANAGERS:
        return None
    name = program_name(argv[0])
    args = argv[1:]
    end = args.index("--") if "--" in args else len(args)
    words = args[:end]
    writes: list[str] = []
    asks: list[str] = []
    positionals: list[str] = []
    global_ = False
    prefix: str | None = None
    i = 0
    while i < len(words):
        arg = words[i]
        option, eq, value = arg.partition("=")
        following = words[i + 1] if i + 1 < len(words) else ""
        if not eq and option in _VALUED[name]:
            value, i = following, i + 1
        i += 1
        if arg in _GLOBAL_FLAGS or (option == "--location" and value == "global"):
            global_ = True
        elif option == "--global" and eq:
            global_ = value != "false"
        elif option in _CACHES:
            writes.append(value)
        elif option == "--prefix" and name == "npm":
            prefix = value
        elif option == _REGISTRY or (option.startswith("--@") and option.endswith(":registry")):
            where = readable(value) if is_literal(value) else "a place known only as it runs"
            asks.append(f"{name} fetches packages and the scripts they run from {where}")
        elif not arg.startswith("-"):
            positionals.append(arg)
    command = _command(name, positionals)
    if name in ("yarn", "yarnpkg") and command == "global":
        global_, command = True, positionals[1] if len(positionals) > 1 else ""
    if global_ and command in _GLOBAL_WRITERS:
        if prefix is not None:
            writes.append(prefix)
        else:
            what = f"{name} {command} of a global package"
            asks.append(f"{what} writes the global prefix, outside the workspace")
    if not writes and not asks:
        return None
    return ProgramUse(writes=tuple(writes), asks=tuple(asks), changes=True)


def _command(name: str, positionals: list[str]) -> str:
    first = positionals[0] if positionals else ""
    return (npm_command(first) or first) if name == "npm" else first
