"""Settings on a package manager's command line that take it outside the workspace, wherever
they stand before `--` (npm reads its options anywhere, as nopt does; pnpm and yarn too):
`-g`/`--global`/`--location=global` (npm, pnpm) and `yarn global` with a command that installs
or removes packages write the global prefix, outside the workspace (asked; with `--prefix
DIR` npm's global prefix is DIR, a write of it); `--registry URL` and npm's
`--@SCOPE:registry=URL` (and a proxy, which may answer as any registry) fetch packages, and
the scripts they run, from a registry not the one configured (asked); `--cache DIR`,
`--cache-folder`, `--store-dir`, `--logs-dir` are written. npm's words are read as nopt reads
them (npm_config: `--reg` is `--registry`); its settings naming a program it starts (`--git`,
`--browser`...) are that program run, `--init-module FILE` is code loaded, a settings file
(`--userconfig`) is asked, and so is a setting npm does not know. yarn's and pnpm's own
fetches and global writes: manager_fetches."""

from __future__ import annotations

import re

from tether.permissions.manager_fetches import own_fetches
from tether.permissions.npm_config import NPM_VALUED, npm_setting
from tether.permissions.option_names import long_option
from tether.permissions.package_sources import fetched_specs
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
_CACHES = frozenset(
    {"--cache", "--cache-folder", "--store-dir", "--global-folder", "--global-dir", "--logs-dir"}
)
_REGISTRIES = frozenset({"--registry", "--proxy", "--https-proxy"})
"""Where packages, and the scripts they run, come from (a proxy may answer as any registry)."""
_PNPM_WATCHED = ("--registry", "--global", "--store-dir", "--global-dir")
_PROGRAMS = frozenset({"--browser", "--editor", "--git", "--node-gyp", "--viewer"})
"""npm's settings naming a program it starts (`npm --git=PROG install`, `--browser` for
`npm docs`, `--viewer` for `npm help`): each is judged as that program run."""
_CONFIGS = frozenset({"--userconfig", "--globalconfig"})
_PLAIN_OPTION = re.compile(r"--(?!onload-script\b)[a-z0-9][a-z0-9-]*(=.*)?", re.DOTALL)
"""An option after a script's name npm passes on, as no spelling of a setting: not npm 6's
`--onload-script` (code it loaded), nor `_` or capitals (`--script_shell`, `--scriptShell`:
how a setting may be spelled to another npm)."""
_SCRIPT_AT = {"run-script": 2, "test": 1, "start": 1, "stop": 1}
"""The number of positionals up to a script's name, for npm's commands that run one."""
_VALUED = {
    name: grammar.known() | _CACHES | _REGISTRIES | {"--location"}
    for name, grammar in (("npm", NPM), ("pnpm", PNPM), ("yarn", YARN), ("yarnpkg", YARN))
}
"""Options whose value is the next word (not a positional: `npm --loglevel silly i`)."""


def manager_settings(argv: tuple[str, ...]) -> ProgramUse | None:
    """What `argv`'s global settings write or fetch from elsewhere; None when nothing. bun's
    installs of a package from a URL or a git host (`bun add github:a/b`, `a/b`) are asked
    as npm's are."""
    if argv and is_literal(argv[0]) and program_name(argv[0]) == "bun":
        fetched = _fetched("bun", argv)
        return ProgramUse(asks=fetched, changes=True) if fetched else None
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
    runs: list[str] = []
    loads: list[str] = []
    prefix: str | None = None
    unknown: list[tuple[str, int]] = []  # with the positionals before each
    i = 0
    while i < len(words):
        arg = words[i]
        following = words[i + 1] if i + 1 < len(words) else ""
        i += 1
        if name == "npm" and arg.startswith("-") and arg != "-":
            read = _npm_option(arg, following)
            if read is None:
                unknown.append((arg, len(positionals)))
                continue
            settings, took = read
            i += took
        else:
            option, eq, value = arg.partition("=")
            if name == "pnpm":
                option = _pnpm_name(option)
            if not eq and option in _VALUED[name]:
                value, i = following, i + 1
            settings = ((option, value),) if arg.startswith("-") else ()
            if not arg.startswith("-"):
                positionals.append(arg)
        for option, value in settings:
            if arg in _GLOBAL_FLAGS or (option in ("-g", "--global") and value != "false"):
                global_ = True
            elif option == "--global" or (option == "--location" and value != "global"):
                global_ = False
            elif option == "--location":
                global_ = True
            elif option in _CACHES:
                writes.append(value)
            elif option == "--prefix" and name == "npm":
                prefix = value
            elif option in _REGISTRIES or (
                option.startswith("--@") and option.endswith(":registry")
            ):
                where = readable(value) if is_literal(value) else "a place known only as it runs"
                asks.append(f"{name} fetches packages and the scripts they run from {where}")
            elif option in _PROGRAMS and name == "npm":
                runs.append(value)
            elif option == "--init-module" and name == "npm":
                loads.append(value)
            elif option in _CONFIGS and name == "npm":
                shown = readable(value) if is_literal(value) else "a file known only as it runs"
                asks.append(f"npm reads its settings from {shown}: programs they name run")
    command = _command(name, positionals)
    # After the script's name, an option npm does not know is passed on to the script, and
    # judged there (script_arguments.py).
    script_at = _SCRIPT_AT.get(command, len(words) + 1)
    asks += [
        f"npm reads {readable(arg)} as a setting tether does not know"
        for arg, before in unknown
        if before < script_at or not _PLAIN_OPTION.fullmatch(arg)
    ]
    if name in ("yarn", "yarnpkg") and command == "global":
        global_, command = True, positionals[1] if len(positionals) > 1 else ""
    if global_ and command in _GLOBAL_WRITERS:
        if prefix is not None:
            writes.append(prefix)
        else:
            what = f"{name} {command} of a global package"
            asks.append(f"{what} writes the global prefix, outside the workspace")
    asks += own_fetches(name, positionals, words)
    asks += _fetched(name, argv)
    if not writes and not asks and not runs and not loads:
        return None
    return ProgramUse(
        writes=tuple(writes), asks=tuple(asks), runs=tuple(runs), loads=tuple(loads), changes=True
    )


def _fetched(name: str, argv: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(
        f"{name} installs {readable(spec)}, fetched with the scripts it runs from a URL or a"
        " git host, not the registry: not seen"
        for spec in fetched_specs(argv)
    )


def _pnpm_name(option: str) -> str:
    """The setting a pnpm option names: pnpm reads its options with nopt too, so a unique
    prefix of a setting's name is that setting (`--reg` is `--registry`); taken as the watched
    one here, whichever pnpm setting it may also begin."""
    read = long_option(option, _PNPM_WATCHED, known=PNPM.flags | PNPM.known(), prefixes=True)
    return read[0] if read is not None else option


def _npm_option(arg: str, following: str) -> tuple[tuple[tuple[str, str], ...], int] | None:
    """The settings an npm option word gives with their values, and how many following words
    it takes (a valued setting's value when not attached); None for a setting not known."""
    if arg.startswith("--@") and arg.partition("=")[0].endswith(":registry"):
        option, eq, value = arg.partition("=")
        return ((option, value if eq else following),), 0 if eq else 1
    settings = npm_setting(arg)
    if settings is None:
        return None
    took = 0
    read: list[tuple[str, str]] = []
    for option, value in settings:
        if value is None and option[2:] in NPM_VALUED:
            value, took = following, 1
        read.append((option, "true" if value is None else value))
    return tuple(read), took


def _command(name: str, positionals: list[str]) -> str:
    first = positionals[0] if positionals else ""
    return (npm_command(first) or first) if name == "npm" else first
