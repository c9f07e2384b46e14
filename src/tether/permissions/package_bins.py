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


def runner_bin(argv: tuple[str, ...]) -> tuple[str, ...] | None:
    """The command a package runner runs by a name found on its PATH (`npx jest --ci`:
    `jest --ci`), or None."""
    if not argv or not is_literal(argv[0]):
        return None
    name = program_name(argv[0])
    args = argv[1:]
    if name in ("npx", "bunx", "pnpx"):
        return _named(args)
    first = args[0] if args else ""
    if name == "npm" and first in ("exec", "x"):
        return _named(args[1:])
    if name == "bun" and first == "x":
        return _named(args[1:])
    if name == "pnpm" and first == "exec":
        return _named(args[1:])
    if name == "yarn" and first in ("exec", "run"):
        return _named(args[1:])
    if name == "pnpm" and first and not first.startswith("-") and first not in _PNPM_OWN:
        return args
    if name == "yarn" and first and not first.startswith("-") and first not in _YARN_OWN:
        return args
    return None


def _named(args: tuple[str, ...]) -> tuple[str, ...] | None:
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return args[i + 1 :] or None
        if arg in ("-c", "--call") or arg.startswith("--call="):
            return None  # a shell command line: launchers.py judges it
        if arg in _NPX_VALUED:
            i += 2
            continue
        if arg.startswith("-"):
            i += 1
            continue
        return args[i:]
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
