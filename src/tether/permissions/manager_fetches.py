"""yarn's and pnpm's own commands that fetch code every later command runs, or write outside
the workspace: `yarn set version SPEC` with a SPEC naming a place (a URL, a file) or `from
sources` (yarn cloned and built), `yarn policies set-version` likewise, `yarn plugin import X`
(a plugin every later yarn runs), `pnpm env use|add|remove --global` (node in PNPM_HOME),
`pnpm setup` (the shell's start-up file) and `pnpm self-update` (pnpm itself)."""

from __future__ import annotations

import re

from tether.permissions.shell_words import is_literal, readable

_RELEASE = re.compile(r"[A-Za-z0-9._+-]*")
"""A yarn release by version or channel (`4.1.0`, `stable`, `canary`, `3.x`): fetched from
yarn's own releases, as `corepack yarn@4` is; anything else (`https://`, a path) is a place."""
_YARN = frozenset({"yarn", "yarnpkg"})
_PNPM_GLOBAL_ENV = frozenset({"use", "add", "remove", "rm"})


def own_fetches(name: str, positionals: list[str], words: tuple[str, ...]) -> list[str]:
    """Why `name`'s command (its `positionals`, its option `words`) fetches code or writes
    outside the workspace; empty when it does neither."""
    head = tuple(positionals[:2])
    rest = positionals[2:]
    if name in _YARN and head in (("set", "version"), ("policies", "set-version")):
        spec = " ".join(rest)
        if rest[:1] == ["from"]:
            return [f"yarn {head[0]} {head[1]} {spec} clones and builds yarn: code not seen"]
        if rest and not (is_literal(rest[0]) and _RELEASE.fullmatch(rest[0])):
            where = readable(rest[0]) if is_literal(rest[0]) else "a place known only as it runs"
            return [f"yarn takes itself from {where}, run by every later yarn: code not seen"]
        return []
    if name in _YARN and head == ("plugin", "import"):
        what = readable(rest[0]) if rest and is_literal(rest[0]) else "a plugin"
        return [f"yarn plugin import installs {what}, which every later yarn runs: code not seen"]
    if name != "pnpm":
        return []
    if head[:1] == ("setup",):
        return ["pnpm setup edits the shell's start-up file, outside the workspace"]
    if head[:1] == ("self-update",):
        return ["pnpm self-update installs pnpm itself, outside the workspace"]
    global_ = any(w in ("-g", "--global") for w in words)
    if head[:1] == ("env",) and head[1:] and head[1] in _PNPM_GLOBAL_ENV and global_:
        return [f"pnpm env {head[1]} --global installs node in PNPM_HOME, outside the workspace"]
    return []
