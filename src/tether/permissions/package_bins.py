"""Programs package runners find in `node_modules/.bin`: npm puts every `node_modules/.bin`
from the package's directory up to the root first on the PATH of its scripts and of what
`npx`/`npm exec` run, and pnpm, yarn and bun do the same (`pnpm exec`, `pnpm NAME`, `yarn
NAME`, `yarn run NAME`, `yarn exec`, `bunx`, `bun x`). The file found there is what runs, judged
as a file run by its path (bash_judge_code `_run_file`), whatever rule allows the runner."""

from __future__ import annotations

import os
from pathlib import Path

from tether.permissions.shell_words import is_literal, program_name

_MAX_UP = 64
_NPX_VALUED = frozenset({"-p", "--package", "--call", "-w", "--workspace", "--prefix", "--cache"})
_FLAGS = frozenset({"--yes", "-y", "--no", "--no-install", "--quiet", "-q", "--silent", "-s"})
_PNPM_OWN = frozenset(
    {"add", "install", "i", "update", "up", "remove", "rm", "link", "ln", "unlink", "import"}
    | {"rebuild", "rb", "prune", "fetch", "patch", "patch-commit", "audit", "list", "ls"}
    | {"outdated", "why", "store", "root", "bin", "setup", "init", "publish", "pack", "run"}
    | {"test", "t", "start", "dlx", "create", "env", "config", "c", "server", "deploy"}
    | {"licenses", "help", "recursive", "m", "multi", "doctor", "self-update", "cat-file"}
)
_YARN_OWN = frozenset(
    {"add", "install", "remove", "upgrade", "up", "run", "dlx", "info", "init", "link"}
    | {"unlink", "pack", "publish", "config", "cache", "why", "workspace", "workspaces"}
    | {"constraints", "dedupe", "explain", "npm", "plugin", "rebuild", "set", "version"}
    | {"bin", "global", "list", "outdated", "audit", "autoclean", "check", "create", "help"}
    | {"import", "licenses", "login", "logout", "owner", "policies", "tag", "team", "test"}
    | {"start"}
)


_GLOBAL_VALUED = frozenset(
    {"--prefix", "-w", "--workspace", "--dir", "-C", "--cwd", "--filter", "-F", "--loglevel"}
    | {"--cache", "--userconfig", "--globalconfig", "--registry", "-p", "--package"}
)
_PLACES = frozenset({"--prefix", "-w", "--workspace", "--dir", "-C", "--cwd"})
_MANY = frozenset({"-ws", "--workspaces", "-r", "--recursive", "--filter", "-F"})
_EXEC_COMMANDS = {
    "npm": ("exec", "exe", "x"),  # npm takes an unambiguous abbreviation
    "bun": ("x", "run"),
    "pnpm": ("exec",),
    "yarn": ("exec", "run"),
}


class BinRun:
    """What a package runner runs by a name found on its PATH: the command's words (or a
    shell command line, `npx -c 'jest --ci'`), the directory it starts in (`--prefix`,
    `-w`, `-C`, `--cwd`: relative to the shell's), and why it is not known (every package's
    PATH: `-ws`, `-r`, `--filter`; a directory known only as it runs)."""

    __slots__ = ("directory", "shell", "unread", "words")

    def __init__(
        self, words: tuple[str, ...], directory: str | None, shell: bool, unread: str | None
    ) -> None:
        self.words = words
        self.directory = directory
        self.shell = shell
        self.unread = unread


def runner_bin(argv: tuple[str, ...]) -> tuple[str, ...] | None:
    """The command a package runner runs by a name found on its PATH (`npx jest --ci`:
    `jest --ci`), or None."""
    run = runner_run(argv)
    return run.words if run is not None and not run.shell else None


def runner_run(argv: tuple[str, ...]) -> BinRun | None:
    """What a package runner runs by a name found on its PATH, with where it starts; None
    when it runs no such name."""
    if not argv or not is_literal(argv[0]):
        return None
    name = program_name(argv[0])
    if name == "corepack" and len(argv) > 1:
        return runner_run(argv[1:])
    options, rest = _global_options(argv[1:])
    if rest and rest[0] in _EXEC_COMMANDS.get(name, ()):
        options += _global_options(rest[1:])[0]  # `npm exec -w x -- jest`
    directory = next((v for o, v in options if o in _PLACES or o.startswith("--prefix")), None)
    many = next((o for o, v in options if o in _MANY and v not in (".", "./")), None)
    unread = f"{name} {many} runs in every package chosen" if many else None
    if directory is not None and not is_literal(directory):
        unread = f"{name}'s directory is known only as it runs"
    first = rest[0] if rest else ""
    if name in ("npx", "bunx", "pnpx"):
        named = _named(argv[1:])
    elif first in _EXEC_COMMANDS.get(name, ()):
        named = _named(rest[1:])  # `bun run NAME`: a script's name, or else a bin
    elif name in ("pnpm", "yarn") and first and not first.startswith("-"):
        own = _PNPM_OWN if name == "pnpm" else _YARN_OWN
        named = None if first in own else (rest, False)
    elif name == "bun" and first and "/" not in first and "." not in first:
        named = None if first in _BUN_OWN else (rest, False)
    else:
        return None
    if named is None or (name == "bun" and first == "run" and not _bare(named[0][:1])):
        return None  # `bun run src/a.js` runs that file with bun
    return BinRun(named[0], directory, named[1], unread)


_BUN_OWN = frozenset(
    {"run", "test", "x", "repl", "exec", "install", "i", "add", "a", "remove", "rm", "update"}
    | {"outdated", "link", "unlink", "publish", "patch", "pm", "build", "init", "create", "c"}
    | {"upgrade", "help", "audit", "info", "why"}
)


def _bare(words: tuple[str, ...]) -> bool:
    """A bin's name: no path, no file's extension."""
    return bool(words) and "/" not in words[0] and "." not in words[0]


def _global_options(args: tuple[str, ...]) -> tuple[list[tuple[str, str]], tuple[str, ...]]:
    """The options before a runner's command (`npm --prefix x exec`, `pnpm -C x jest`), each
    with its value ("\\0" for a flag), and the words from the command on."""
    options: list[tuple[str, str]] = []
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        option, eq, value = args[i].partition("=")
        if option in _GLOBAL_VALUED and not eq:
            value = args[i + 1] if i + 1 < len(args) else ""
            i += 1
        options.append((option, value if eq or option in _GLOBAL_VALUED else "\0"))
        i += 1
    return options, args[i:]


def _named(args: tuple[str, ...]) -> tuple[tuple[str, ...], bool] | None:
    """The command `npx`/`exec`'s words run and whether it is a shell command line (`-c`,
    `--call`: run with the same PATH)."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return (args[i + 1 :], False) if args[i + 1 :] else None
        if arg in ("-c", "--call") or arg.startswith("--call="):
            line = (
                arg.partition("=")[2] if "=" in arg else (args[i + 1] if i + 1 < len(args) else "")
            )
            return ((line,), True) if line else None
        if arg in _NPX_VALUED:
            i += 2
            continue
        if arg.startswith("-"):
            i += 1
            continue
        return args[i:], False
    return None


def bin_file(name: str, start: Path) -> Path | None:
    """The `node_modules/.bin/NAME` a package runner started in `start` finds first."""
    if not name or "/" in name or name in (".", ".."):
        return None
    for place in (start, *list(start.parents)[:_MAX_UP]):
        found = place / "node_modules" / ".bin" / name
        if os.path.lexists(found):
            return found
    return None
