"""A git command that reaches remotes by the repository's configuration (git_remote_urls.py),
judged as if their URLs were typed: the `ssh HOST` it starts for each ssh URL among them
(remote_shells.py): `git fetch` of an origin `h:r` meets a rule on ssh as `git fetch h:r`
does; the command an `ext::` URL or a remote helper runs, and the programs the configuration
names (`remote.NAME.uploadpack`, `core.sshCommand`...), judged as commands; a local path, a
read of that repository. The repository asked is the one git uses (`-C`, `--git-dir` in either
spelling); one not known reaches any host. A remote configured earlier in the same command
line (`git remote add o h:r && git fetch o`) is read from there."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Final

from tether.permissions.deleting_equivalents import Equivalent
from tether.permissions.file_urls import local_url_path
from tether.permissions.git_names import subcommand_at
from tether.permissions.git_remote_urls import (
    ALL,
    PROGRAM,
    URL_WORD,
    local_path,
    reached_remotes,
    set_remotes,
    transport_name,
    url_program,
)
from tether.permissions.path_rules import PathRules
from tether.permissions.remote_shells import remote_host
from tether.permissions.shell_words import DYN, is_literal, readable
from tether.slotted import Slotted

Pending = list[tuple[str, str]]
"""(remote, URL) pairs the command line configured before (`ALL`: reached by every fetch)."""


class Configured(Slotted):
    """What a git command reaches by configuration: the ssh hosts (as `ssh HOST` commands,
    for deny and ask rules), the commands git runs (shell text) and the local repositories
    it reads (absolute, or relative to where git runs); `asks`: why a remote reached through
    a transport of its own (`fd::`, `ext::`, a helper's `NAME::`) is asked."""

    __slots__ = ("asks", "hosts", "reads", "runs")
    hosts: Final[Equivalent | None]
    runs: Final[tuple[str, ...]]
    reads: Final[tuple[str, ...]]
    asks: Final[tuple[str, ...]]

    def __init__(
        self,
        hosts: Equivalent | None,
        runs: tuple[str, ...],
        reads: tuple[str, ...],
        asks: tuple[str, ...] = (),
    ) -> None:
        self.hosts = hosts
        self.runs = runs
        self.reads = reads
        self.asks = asks


NOTHING = Configured(None, (), ())


def configured_remotes(
    argv: tuple[str, ...], cwds: list[Path | None], files: PathRules, pending: Pending
) -> Configured:
    """What git's `argv` reaches by configuration, from each of the shell's directories
    `cwds`; the remotes it configures are added to `pending`."""
    at = subcommand_at(argv)
    settings = tuple(v for o, v in pairwise(argv[1:at]) if o == "-c")
    args = argv[at:]
    reached = reached_remotes(args)
    urls: list[str] = []
    if reached is not None:
        names, _ = reached
        urls += [w for w in (n.removeprefix(URL_WORD) for n in names) if _typed_local(w)]
        urls += [
            u for n, u in (*pending, *set_remotes((), settings)) if n in names or ALL in (n, *names)
        ]
        for cwd in cwds:
            place = _directory(argv[1:at], cwd)
            real = files.real(place) if place is not None else None
            found = files.ctx.git_remote_urls(real, args) if real is not None else None
            urls += found if found is not None else (f"{DYN}:x",)  # not known: any host
    urls += _bundle_read(args)
    added = set_remotes(args, settings)
    if args[:1] == ("submodule",):  # `submodule add URL` clones it now
        urls += [url for _, url in added]
    pending += added
    if not urls:
        return NOTHING
    unique = list(dict.fromkeys(urls))
    runs = [u[len(PROGRAM) :] for u in unique if u.startswith(PROGRAM)]
    unique = [u for u in unique if not u.startswith(PROGRAM)]
    runs += [c for c in map(url_program, unique) if c is not None]
    reads = [_path(u) for u in unique if u.startswith("file://") or local_path(u)]
    hosts = [h for h in (remote_host(u, daemon=True) for u in unique) if h]
    equivalent = None
    if hosts:
        shown = readable(" ".join(argv[at : at + 2]))
        does = f"`git {shown}` reaches {hosts[0]} by ssh, as the repository's remotes say"
        equivalent = Equivalent(tuple(("ssh", h) for h in dict.fromkeys(hosts)), does)
    asks = [
        f"git reaches the remote {readable(u)} through its own transport `{name}::`, "
        "which runs a program or talks to one tether does not see"
        for u in unique
        if (name := transport_name(u)) is not None
    ]
    return Configured(equivalent, tuple(runs), tuple(reads), tuple(asks))


_BUNDLE_READS = frozenset({"unbundle", "verify", "list-heads"})


def _bundle_read(args: tuple[str, ...]) -> list[str]:
    """The bundle `git bundle unbundle|verify|list-heads FILE` reads: a repository in one
    file, read as `git fetch FILE.bundle` reads it."""
    if len(args) < 2 or args[0] != "bundle" or args[1] not in _BUNDLE_READS:
        return []
    named = [w for w in args[2:] if not w.startswith("-") or w == "-"]
    return named[:1] if named and named[0] != "-" else []


def _typed_local(word: str) -> bool:
    """A repository named on the command line by its place on this machine (`git fetch
    /other/repo`, `../r`, `file:///r`, `x.bundle`): read as a configured remote's path is.
    A bare name is a remote's, but git takes one no remote has for a path (`git fetch out`,
    `out` a link to a repository outside): read as that path too, which is nothing where no
    such file is."""
    if not is_literal(word) or word == ALL:
        return False
    return word.startswith("file://") or local_path(word)


def _path(url: str) -> str:
    """A local URL's path (`file:///x` is `/x`, `file://localhost/x` too, escapes decoded)."""
    return local_url_path(url) if url.startswith("file://") else url


def _directory(options: tuple[str, ...], cwd: Path | None) -> Path | None:
    """Where to ask git for the repository's remotes: `cwd`, moved by each `-C DIR`, or the
    repository `--git-dir` names (git finds it from inside it; `--work-tree` does not change
    the repository); None when not known."""
    place = cwd
    repository: Path | None = None
    words = iter(options)
    for option in words:
        name, eq, value = option.partition("=")
        if name not in ("-C", "--git-dir", "--work-tree", "--namespace"):
            continue
        value = value if eq else next(words, "")
        if place is None or not is_literal(value):
            return None
        if name == "-C" and not option.startswith("-C="):
            place = place / value
        elif name == "--git-dir":
            repository = place / value
    return repository if repository is not None else place
