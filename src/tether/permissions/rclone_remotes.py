"""The ssh hosts rclone's named remotes reach, read from its configuration as rclone reads it:
the file `--config FILE` or `$RCLONE_CONFIG` names, else the first of
`~/.config/rclone/rclone.conf` and `~/.rclone.conf` there is. A remote is judged by its type:
`sftp` reaches its `host` by ssh (a `NAME,host=H:` connection string overrides it); the
wrapping backends (alias, crypt, chunker, hasher, compress, union, combine) reach what they
wrap; the others (local files, object stores) reach no ssh host. A remote the file does not
define (or one its environment defines, `$RCLONE_CONFIG_NAME_TYPE`), a configuration that
cannot be read (encrypted, too large, not a file) or a chain of wrappers that never ends may
reach any host (`DYN`). On-the-fly remotes (`:sftp,host=H:`) are read in remote_shells."""

from __future__ import annotations

import configparser
import re
from collections.abc import Callable
from pathlib import Path

from tether.permissions.option_names import OptionGrammar, option_values
from tether.permissions.shell_words import DYN, HOME, is_literal

Argv = tuple[str, ...]
Assignments = tuple[tuple[str, str], ...]
Reader = Callable[[Path], str | None]
"""A small file's text; "" when it is not there, None when it cannot be read."""

_WRAPPERS = frozenset({"alias", "crypt", "chunker", "hasher", "compress", "cache", "press"})
_UPSTREAMS = frozenset({"union", "combine"})
_SSH_TYPES = frozenset({"sftp"})
_CONFIG = OptionGrammar(("--config",), prefixes=True, stops=True)
_REMOTE = re.compile(r"([^:/\\,]+)(,[^:]*)?:")
_DEPTH = 8


def rclone_hosts(
    args: Argv, assignments: Assignments, home: Path, cwd: Path | None, read: Reader
) -> list[str]:
    """The ssh hosts the named remotes among rclone's operands reach (`DYN`: any)."""
    remotes = [m for a in args if not a.startswith(("-", ":")) and (m := _REMOTE.match(a))]
    if not remotes:
        return []
    sections = _sections(args, assignments, home, cwd, read)
    hosts: list[str] = []
    for found in remotes:
        name, params = found.group(1), found.group(2) or ""
        if any(k.startswith(f"RCLONE_CONFIG_{name.upper()}_") for k, _ in assignments):
            hosts.append(DYN)
            continue
        override = re.search(r",host=([^,]+)", params)
        reached = _reached(name, sections, _DEPTH)
        if override is not None and reached and reached != [DYN]:
            reached = [override.group(1)]
        hosts += reached
    return hosts


def _sections(
    args: Argv, assignments: Assignments, home: Path, cwd: Path | None, read: Reader
) -> dict[str, dict[str, str]] | None:
    """rclone's configuration, section by section; None when it cannot be read."""
    named = option_values(args, _CONFIG) or [v for k, v in assignments if k == "RCLONE_CONFIG"]
    if named:
        word = named[-1].replace(HOME, str(home), 1)
        if not is_literal(word) or (not word.startswith("/") and cwd is None):
            return None
        paths = [cwd / word if cwd is not None and not word.startswith("/") else Path(word)]
    else:
        paths = [home / ".config" / "rclone" / "rclone.conf", home / ".rclone.conf"]
    for path in paths:
        text = read(path)
        if text is None:
            return None
        if not text and path != paths[-1]:
            continue
        if "RCLONE_ENCRYPT_V" in text:
            return None
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(text)
        except configparser.Error:
            return None
        return {s: dict(parser.items(s)) for s in parser.sections()}
    return {}


def local_roots(
    args: Argv, assignments: Assignments, home: Path, cwd: Path | None, read: Reader
) -> dict[str, str] | None:
    """The named remotes that are local directories, by name: `type = local` ones (their
    paths are the machine's own, "" the root) and aliases of a local path (its path); None
    when the configuration cannot be read."""
    sections = _sections(args, assignments, home, cwd, read)
    if sections is None:
        return None
    roots: dict[str, str] = {}
    for name, section in sections.items():
        target = section.get("remote", "")
        if section.get("type") == "local":
            roots[name] = ""
        elif section.get("type") == "alias" and target and _REMOTE.match(target) is None:
            roots[name] = target  # `remote = /srv/data`: the alias's paths are below it
    for name, section in sections.items():  # an alias of a local remote's path (`files:/x`)
        found = _REMOTE.match(section.get("remote", "")) if section.get("type") == "alias" else None
        if found is not None and sections.get(found.group(1), {}).get("type") == "local":
            roots[name] = section["remote"][found.end() :] or "/"
    return roots


def _reached(name: str, sections: dict[str, dict[str, str]] | None, depth: int) -> list[str]:
    """The ssh hosts remote `name` reaches, following what it wraps."""
    if sections is None or name not in sections or depth == 0:
        return [DYN]
    section = sections[name]
    kind = section.get("type", "")
    if kind in _SSH_TYPES:
        return [section.get("host") or DYN]
    if kind in _WRAPPERS:
        wrapped = [section.get("remote", "")]
    elif kind in _UPSTREAMS:
        wrapped = [w.partition("=")[2] if kind == "combine" else w for w in _words(section)]
    else:
        return []
    hosts: list[str] = []
    for target in wrapped:
        inner = _REMOTE.match(target.lstrip(":")) if not target.startswith(("/", ".")) else None
        if target.startswith(":") and inner is not None:
            hosts += [DYN] if inner.group(1) in _SSH_TYPES else []
        elif inner is not None:
            hosts += _reached(inner.group(1), sections, depth - 1)
    return hosts


def _words(section: dict[str, str]) -> list[str]:
    """A union's or combine's upstreams (`a:x b:y:ro`, `dir=remote:path`), space separated."""
    return section.get("upstreams", "").split()
