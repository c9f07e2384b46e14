"""A git command that reaches hosts by the repository's configuration (git_remote_urls.py),
as the `ssh HOST` it starts for each ssh URL among them (remote_shells.py): `git fetch` of an
origin `h:r` meets a rule on ssh as `git fetch h:r` does; an `ext::` URL is the command it
runs, a remote's `uploadpack`/`receivepack` program is run by the shell, and a repository on
this machine is read as `git fetch PATH` reads it. A remote configured earlier in the
same command line (`git remote add o h:r && git fetch o`) is read from there."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from tether.permissions.deleting_equivalents import Equivalent
from tether.permissions.git_names import subcommand_at
from tether.permissions.git_remote_urls import ALL, PROGRAM, reached_remotes, set_remotes
from tether.permissions.path_rules import PathRules
from tether.permissions.remote_shells import remote_host
from tether.permissions.shell_words import DYN, is_literal, readable

Pending = list[tuple[str, str]]
"""(remote, URL) pairs the command line configured before (`ALL`: reached by every fetch)."""


def configured_hosts(
    argv: tuple[str, ...], cwds: list[Path | None], files: PathRules, pending: Pending
) -> Equivalent | None:
    """`ssh HOST` for each ssh host git's `argv` reaches by configuration, from each of the
    shell's directories `cwds`; the remotes it configures are added to `pending`."""
    at = subcommand_at(argv)
    settings = tuple(v for o, v in pairwise(argv[1:at]) if o == "-c")
    args = argv[at:]
    reached = reached_remotes(args)
    urls: list[str] = []
    if reached is not None:
        names, _ = reached
        urls += [
            u for n, u in (*pending, *set_remotes((), settings)) if n in names or ALL in (n, *names)
        ]
        for cwd in cwds:
            place = _directory(argv[1:at], cwd)
            real = files.real(place) if place is not None else None
            found = files.ctx.git_remote_urls(real, args) if real is not None else None
            urls += found if found is not None else (f"{DYN}:x",)  # not known: any host
    added = set_remotes(args, settings)
    if args[:1] == ("submodule",):  # `submodule add URL` clones it now
        urls += [url for _, url in added]
    pending += added
    shown = readable(" ".join(argv[at : at + 2]))
    runs: list[tuple[str, ...]] = []
    for url in dict.fromkeys(urls):
        runs += _url_runs(url, "push" if args[:1] == ("push",) else "fetch")
    if not runs:
        return None
    does = f"`git {shown}` runs `{readable(' '.join(runs[0]))}`, as the repository's remotes say"
    return Equivalent(tuple(dict.fromkeys(runs)), does)


def _url_runs(url: str, transport: str) -> list[tuple[str, ...]]:
    """What git runs or reads for a configured URL, as a command typed: `ssh HOST` for an ssh
    one, the program of an `ext::` one, `sh -c PROGRAM` for an `uploadpack`/`receivepack`
    setting, `git fetch PATH` for a repository on this machine (a read of it)."""
    if url.startswith(PROGRAM):
        return [("sh", "-c", url[len(PROGRAM) :])]
    if url[:5].lower() == "ext::":
        return [_ext_command(url[5:])]
    host = remote_host(url, daemon=True)
    if host:
        return [("ssh", host)]
    local = url[:7].lower() == "file://" or ("://" not in url and "/" in url)
    return [("git", transport, url)] if local and not url.startswith(DYN) else []


def _ext_command(text: str) -> tuple[str, ...]:
    """An `ext::` URL's command: words split at spaces, `% ` a space, `%%` a percent sign,
    `%s`/`%S`/`%G`/`%V` what git fills in (known only as it runs)."""
    words: list[str] = [""]
    i = 0
    while i < len(text):
        char = text[i]
        if char == "%" and i + 1 < len(text):
            follow = text[i + 1]
            words[-1] += follow if follow in " %" else DYN
            i += 2
            continue
        if char == " ":
            words.append("")
        else:
            words[-1] += char
        i += 1
    return tuple(w for w in words if w) or (DYN,)


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
