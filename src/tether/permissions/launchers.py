"""Looking through launchers: `uv run pytest`, `python3 -m tox exec -- make`, `npx -c 'CMD'`
run a command that is judged as if it were typed (its deny and ask rules hold, and a rule
allowing the launcher does not allow what the command would be denied or asked for), with the
launcher's table (launcher_table.py), and what `nix run` runs (nix_launch.py); app specs
that are code (`flask --app 'mod:f(...)'`, `gunicorn 'mod:make()'`: app_specs.py) likewise.

The launcher is an invocation of its own (role `command`, its whole line judged as its own, so
`Bash(uv run pytest *)` names it) whose `inner` is the launched command. An unknown subcommand
of a launcher whose subcommands are all listed, or an option not understood where the command
starts, is not knowing what runs: asked, with deny rules tried on every tail.
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass

from tether.permissions.app_specs import app_code
from tether.permissions.corepack import corepack_launch
from tether.permissions.entry_programs import (
    PROGRAM_ALIASES,
    RUNNER_MODULES,
    entry_of,
    runner_module,
)
from tether.permissions.launcher_table import (
    LAUNCHERS,
    TOX_COMMAND_KEYS,
    TOX_HARMLESS_KEYS,
    Launcher,
    Sub,
)
from tether.permissions.nix_launch import nix_runs, profile_writes, runs_typed, shell_command
from tether.permissions.runner_tables import COREPACK_TOOLS
from tether.permissions.script import Invocation
from tether.permissions.shell_words import DYN, is_literal, program_name
from tether.permissions.tar_words import tar_words
from tether.permissions.wrapper_options import WrapperSpec, parse_options, unparsed

Inner = Callable[..., Invocation]
Code = Callable[..., Invocation]

_SCRIPT = re.compile(r".*\.pyw?|[a-z+]+://.*")
_FILE_URL = re.compile(r"(?:git\+)?file://(?=/)")
_PLACE = re.compile(rf"[/.~]|{_FILE_URL.pattern}")
"""A package named by where it is (`/x/pkg`, `./pkg`, `file:///x`), not by name."""
_ENVIRONMENT = re.compile(r"[A-Za-z0-9_.+-]+:(?=.)")
"""`hatch run ENV:CMD`'s environment."""
_VERSION = re.compile(r"(@?[^@]+)@[^@/]*")
"""`ruff@0.6`, `@scope/pkg@latest`: a package spec with its version."""


def launch(plain: Invocation, inner: Inner, code: Code) -> Invocation | None:
    """`plain` with what it launches as its inner commands, or None when it launches nothing
    the table knows (then it is judged as it was)."""
    runner = runner_module(plain.argv)
    if runner is not None:
        # `python3 -m tox`, `python3 -m poethepoet X`: the runner itself, judged as typed.
        ran = inner(runner, plain.assignments)
        return Invocation(plain.argv, plain.assignments, plain.redirects, inner=(ran,))
    entry = entry_of(plain.argv)
    if entry is None:
        return _with_app(plain, inner, code)
    name, args = entry
    alias = PROGRAM_ALIASES.get(name)
    if alias is not None:
        # `conda-env config vars set X=1`: `conda env config vars set X=1`, judged as typed.
        ran = inner((*alias, *args), plain.assignments)
        return Invocation(plain.argv, plain.assignments, plain.redirects, inner=(ran,))
    if name in _REMOTE_TAR:
        hosts = _tar_hosts(args)
        if hosts:
            # `tar -cf HOST:FILE`: GNU tar reaches HOST's archive through `rsh HOST`.
            return Invocation(
                plain.argv,
                plain.assignments,
                plain.redirects,
                inner=tuple(inner(("rsh", host, "/etc/rmt")) for host in hosts),
            )
        return None
    if name in ("nix", "nix-env", "nix-shell"):
        runs = nix_runs(args) if name == "nix" else []
        if isinstance(runs, str):
            return unparsed(plain, "command", f"cannot tell what nix runs: {runs}")
        words, texts = shell_command(name, args)
        runs += [words] if words else []
        writes = profile_writes(name, args)
        if texts:
            ran = [code(text, "command") for text in texts]
            return Invocation(
                plain.argv,
                plain.assignments,
                plain.redirects,
                inner=(*(i for r in ran for i in r.inner), *(inner(words) for words in runs)),
                problems=tuple(p for r in ran for p in r.problems),
                writes=writes,
            )
        if runs or writes:
            inners = tuple(inner(words) for words in runs)
            return Invocation(
                plain.argv, plain.assignments, plain.redirects, inner=inners, writes=writes
            )
        return _with_app(plain, inner, code)
    if name == "corepack":
        return corepack_launch(plain, inner, args, fetches=fetched_package(plain.argv) is not None)
    launcher = LAUNCHERS.get(name)
    if launcher is None:
        return _with_app(plain, inner, code)
    found = _subcommand(launcher, args)
    if isinstance(found, str):
        return unparsed(plain, "command", f"cannot tell what {name} runs: {found}")
    sub, at = found
    if sub is None:
        return None
    overrides = _overrides(launcher, args, code)
    if isinstance(overrides, str):
        return unparsed(plain, "command", f"{name} {overrides}")
    launched = _launched(sub, args[at:])
    if isinstance(launched, _Moved):
        return _moved(plain, name, launched, code)
    if isinstance(launched, str):
        return unparsed(plain, "command", f"cannot tell what {name} runs: {launched}")
    runs = [*overrides, *(code(text, "command") for text in launched.shell)]
    inners = [i for r in runs for i in r.inner]
    problems = [p for r in runs for p in r.problems]
    inners += [inner(words) for words in (*launched.packages, launched.words) if words]
    reads = launched.reads
    writes = _hook_writes(args[at:]) if sub.hooks else ()
    if not inners and not writes and not reads:
        return None
    return Invocation(
        plain.argv,
        plain.assignments,
        plain.redirects,
        inner=tuple(inners),
        problems=tuple(problems),
        reads=reads,
        writes=writes,
    )


def launches(inv: Invocation) -> bool:
    """Whether `inv` is a launcher running its inner commands (a rule naming it covers what no
    rule decides in them, as for sudo: bash_policy)."""
    entry = entry_of(inv.argv) if inv.inner and inv.role == "command" else None
    if entry is not None and (runner_module(inv.argv) is not None or entry[0] in PROGRAM_ALIASES):
        return True
    if entry is not None and entry[0] in ("nix", "nix-shell"):
        return not runs_typed(*entry)
    return entry is not None and (entry[0] in LAUNCHERS or entry[0] == "corepack")


def fetched_package(argv: tuple[str, ...]) -> tuple[str, tuple[int, ...]] | None:
    """Why `argv` runs a package fetched from a registry (`pnpm dlx X`, `uvx X`, `npx
    --package X Y`, `npm init X`), and the places in `argv` of the subcommand's words (a rule
    naming them allows it: `Bash(pnpm dlx *)`); None when it fetches nothing to run."""
    entry = entry_of(argv)
    if entry is not None and entry[0] == "corepack" and entry[1]:
        # `corepack pnpm[@V] dlx X`: the tool corepack starts, its words one further on.
        tool = entry[1][0].partition("@")[0]
        inner = fetched_package((tool, *entry[1][1:])) if tool in COREPACK_TOOLS else None
        if inner is None:
            return None
        offset = len(argv) - len(entry[1])
        return f"`corepack {inner[0][1:]}", tuple(offset + i for i in (0, *inner[1]))
    launcher = LAUNCHERS.get(entry[0]) if entry is not None else None
    if entry is None or launcher is None:
        return None
    name, args = entry
    found = _subcommand(launcher, args)
    if isinstance(found, str):
        # `pnpm --unknown X dlx Y`: what the option takes is not known, `dlx` may be pnpm's.
        fetching = {key[0] for key, sub in launcher.subcommands.items() if key and sub.fetches}
        if not fetching & set(args):
            return None
        return f"`{name}` ({found}) may run a package fetched from a registry, code not seen", ()
    sub, at = found
    if sub is None:
        return None
    rest = args[at:]
    if sub.fetches:
        if sub.how == "nothing" and all(a.startswith("-") for a in rest):
            return None  # `npm init -y`: no package named
        parsed = parse_options(rest, sub.options) if sub.how == "command" else ""
        if (
            not isinstance(parsed, str)
            and parsed.rest >= len(rest)
            and not {n for n, _ in parsed.options} & sub.fetch_options
        ):
            return None  # `npm exec -c 'CMD'`: no package named
    elif sub.fetch_options:
        parsed = parse_options(rest, sub.options)
        if isinstance(parsed, str) or not any(
            n in sub.fetch_options and v is not None and not _PLACE.match(v)
            for n, v in parsed.options
        ):
            return None  # `uv run --with ./pkg`: a package directory, judged as its code
    else:
        return None
    offset = len(argv) - len(args)
    # The subcommand's words, not a global option's value (`pnpm -C DIR dlx X`: `dlx`).
    size = 2 if at >= 2 and args[at - 2 : at] in launcher.subcommands else 1
    words = tuple(offset + i for i in range(max(at - size, 0), at) if not args[i].startswith("-"))
    typed = " ".join((name, *(argv[i] for i in words)))
    return f"`{typed}` runs a package fetched from a registry, code tether cannot see", words


def _with_app(plain: Invocation, inner: Inner, code: Code) -> Invocation | None:
    runs = app_code(plain.argv, plain.assignments)
    if not runs:
        return None
    return Invocation(
        plain.argv,
        plain.assignments,
        plain.redirects,
        inner=tuple(inner(words) for words in runs),
    )


_NO_OPTIONS = WrapperSpec()


def _subcommand(launcher: Launcher, args: tuple[str, ...]) -> tuple[Sub | None, int] | str:
    """The subcommand `args` give and the index after its words; (None, _) when the launcher
    launches nothing through it, or why it cannot be told."""
    if set(launcher.subcommands) == {()}:
        return launcher.subcommands[()], 0  # `npx [OPTIONS] CMD`: the options are the command's
    if args[:2] in launcher.subcommands:
        return launcher.subcommands[args[:2]], 2  # `cmake -E env`: an option as first word
    if launcher.closed:
        parsed = parse_options(args, launcher.options)
        if isinstance(parsed, str):
            return parsed
        at = parsed.rest
    elif launcher.options == _NO_OPTIONS:
        at = next((i for i, a in enumerate(args) if not a.startswith("-")), len(args))
    else:
        # Global options before the subcommand, their values read (`pnpm -C DIR dlx X`,
        # `yarn --cwd DIR dlx X`); one not understood may take the next word as its value:
        # asked when a listed subcommand follows.
        parsed = parse_options(args, launcher.options)
        if isinstance(parsed, str):
            listed = {key[0] for key in launcher.subcommands if key}
            if any(a in listed for a in args):
                return parsed
            at = next((i for i, a in enumerate(args) if not a.startswith("-")), len(args))
        else:
            at = parsed.rest
    if at > 0 and args[at - 1] == "--" and () in launcher.subcommands:
        return launcher.subcommands[()], at
    if at >= len(args):
        sub = launcher.subcommands.get(())
        if sub is None and launcher.closed:
            return None, at  # help, or a usage error
        return sub, at
    if not is_literal(args[at]):
        return "a subcommand that is not a literal"
    word = (launcher.names(args[at]) if launcher.names else None) or args[at]
    pair = (word, args[at + 1]) if at + 1 < len(args) else None
    if pair is not None and pair in launcher.subcommands:
        return launcher.subcommands[pair], at + 2
    if (word,) in launcher.subcommands:
        return launcher.subcommands[(word,)], at + 1
    if any(key[:1] == (word,) for key in launcher.subcommands):
        return f"`{word}` with an unknown subcommand"
    return f"an unknown subcommand `{word}`" if launcher.closed else (None, at)


@dataclass(frozen=True)
class _Launched:
    words: tuple[str, ...] = ()
    """The launched command's words."""
    shell: tuple[str, ...] = ()
    """Shell command lines its options give (`npx -c CMD`)."""
    reads: tuple[str, ...] = ()
    """Files its options read (`uv run --env-file FILE`)."""
    packages: tuple[tuple[str, ...], ...] = ()
    """Package directories it installs and runs, as `python3 DIR`."""


@dataclass(frozen=True)
class _Moved:
    directory: str
    words: tuple[str, ...]
    """`cmake -E chdir DIR CMD`: CMD run in DIR."""


def _moved(plain: Invocation, name: str, moved: _Moved, code: Code) -> Invocation:
    """The command run in another directory, judged as `cd DIR && CMD` is (its relative
    paths from DIR)."""
    words = (moved.directory, *moved.words)
    if not moved.words or not all(is_literal(w) for w in words):
        return unparsed(plain, "command", f"cannot tell what {name} runs in {moved.directory}")
    ran = code(f"cd -- {shlex.quote(moved.directory)} && {shlex.join(moved.words)}", "command")
    return Invocation(
        plain.argv, plain.assignments, plain.redirects, inner=ran.inner, problems=ran.problems
    )


def _launched(sub: Sub, args: tuple[str, ...]) -> _Launched | _Moved | str:
    """What `sub` launches with `args`, or why it cannot be told."""
    if sub.how == "nothing":
        return _Launched()
    if sub.program:
        return _Launched((sub.program, *args))
    if sub.chdir:
        return _Moved(args[0], args[1:]) if args else "no directory"
    if sub.how == "after_dashdash":
        return _Launched(args[args.index("--") + 1 :] if "--" in args else ())
    parsed = parse_options(args, sub.options)
    if isinstance(parsed, str):
        return parsed
    shell = tuple(v for n, v in parsed.options if n in sub.shell and v is not None)
    packages = tuple(
        ("python3", _FILE_URL.sub("", v, count=1))
        for n, v in parsed.options
        if n in sub.packages and v is not None and (not is_literal(v) or _PLACE.match(v))
    )
    reads = tuple(v for n, v in parsed.options if n in sub.options.reads and v is not None)
    words = args[parsed.rest + sub.skips :]
    if words and any(n in ("-m", "--module") for n, _ in parsed.options):
        words = ("python3", "-m", *words)
    elif words and is_literal(words[0]):
        first = words[0]
        if sub.environments and (environment := _ENVIRONMENT.match(first)):
            first = first[environment.end() :]
        if sub.scripts and _SCRIPT.fullmatch(first):
            # A URL is a script fetched as it runs: a path not known now.
            words = ("python3", DYN if "://" in first else first, *words[1:])
        else:
            versioned = _VERSION.fullmatch(first)
            words = (versioned.group(1) if versioned else first, *words[1:])
    return _Launched(words, shell, reads, packages)


def _overrides(launcher: Launcher, args: tuple[str, ...], code: Code) -> list[Invocation] | str:
    """tox's `-x KEY=VALUE`: a command setting's value is a command line; a setting that only
    tunes the run is nothing; any other may load code."""
    if not launcher.overrides:
        return []
    found: list[Invocation] = []
    for i, arg in enumerate(args):
        if arg == "--":
            break
        value: str | None = None
        for option in launcher.overrides:
            if arg == option:
                value = args[i + 1] if i + 1 < len(args) else ""
            elif option.startswith("--") and arg.startswith(option + "="):
                value = arg[len(option) + 1 :]
            elif not option.startswith("--") and arg.startswith(option) and arg != option:
                value = arg[len(option) :]
        if value is None:
            continue
        if not is_literal(value):
            return "has a setting that is not a literal"
        key, _, text = value.partition("=")
        key = key.rstrip("+").rpartition(".")[2].strip()
        if key in TOX_COMMAND_KEYS or key.endswith("_command"):
            found.append(code(text, "command"))
        elif key not in TOX_HARMLESS_KEYS:
            return f"setting `{key}` may name a program or code to run"
    return found


def _hook_writes(args: tuple[str, ...]) -> tuple[str, ...]:
    """The hooks `pre-commit install`/`uninstall` write (`-t TYPE`, `--hook-type TYPE`; the
    pre-commit hook by default), or the template directory `init-templatedir DIR` fills."""
    types: list[str] = []
    positionals: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-t", "--hook-type", "-c", "--config") and i + 1 < len(args):
            if arg in ("-t", "--hook-type"):
                types.append(args[i + 1])
            i += 2
            continue
        if arg.startswith("--hook-type="):
            types.append(arg.partition("=")[2])
        elif arg.startswith("-t") and len(arg) > 2:
            types.append(arg[2:])
        elif not arg.startswith("-"):
            positionals.append(arg)
        i += 1
    if positionals:
        return (f"{positionals[0]}/hooks",)
    return tuple(f".git/hooks/{t}" for t in (types or ["pre-commit"]))


_PYTHON = re.compile(r"(python|pypy)[0-9.]*")
_KNOWN_MODULES = frozenset(
    {"pytest", "pip", "mypy", "pylint", "black", "ruff", "flake8", "isort", "coverage", "build"}
    | {"twine", "sphinx", "IPython", "ipykernel", "jupyter", "nbconvert", "notebook", "django"}
    | {"flask", "uvicorn", "gunicorn", "hypercorn", "celery", "alembic", "mkdocs", "nox"}
    | {"invoke", "doit", "SCons", "snakemake", "streamlit", "scrapy", "papermill", "virtualenv"}
    | {"setuptools", "wheel", "bandit", "pyright", "yapf", "autopep8", "pyflakes", "dotenv"}
    | {"pycodestyle", "pydocstyle", "vulture", "radon", "pip_audit", "pipdeptree", "poethepoet"}
    | {"prospector", "behave", "pytest_benchmark", "hypothesis", "maturin", "cython", "Cython"}
)
"""Third-party modules the tables know (or that take no command on their line)."""


def unknown_module(inv: Invocation) -> tuple[str, ...] | None:
    """`MODULE ARGS` of `python3 -m MODULE ARGS` when no table knows MODULE (neither the
    standard library's nor a tool's, nor a launcher): what it does with its words is as
    unknown as an unknown program's (`python3 -m honcho run CMD`), so deny rules are tried on
    their tails (bash_rules.later_commands), whatever rule allows the interpreter."""
    if inv.role != "command" or inv.inner or not inv.argv or "-m" not in inv.argv:
        return None
    if not _PYTHON.fullmatch(program_name(inv.argv[0])):
        return None
    entry = entry_of(inv.argv)
    if entry is None:
        return None
    name, args = entry
    top = name.partition(".")[0]
    known = top in LAUNCHERS or top in _KNOWN_MODULES or top in RUNNER_MODULES
    if top in sys.stdlib_module_names or known:
        return None
    return (name, *args)


_REMOTE_TAR = frozenset({"tar", "gtar"})
_REMOTE = re.compile(r"([^/:]*@)?([^/:]+):")


def _tar_hosts(args: tuple[str, ...]) -> tuple[str, ...]:
    """The hosts GNU tar's archive names are on (`-f HOST:FILE`, `--file=[USER@]HOST:FILE`, the
    archive of an old-style `tar cf HOST:FILE`): a colon before any slash, unless
    `--force-local`. Any word of that shape is taken for one (a member so named asks too)."""
    words = tar_words(args)
    if words.force_local:
        return ()
    found: list[str] = []
    for word in (*words.archives, *words.members):
        remote = _REMOTE.match(word) if is_literal(word) else None
        if remote is not None:
            found.append(remote.group(2))
    return tuple(found)
