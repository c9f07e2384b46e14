"""The remotes git reaches by its configuration, not by a URL on the command line: `git fetch`,
`pull`, `push`, `ls-remote` with no repository or a remote's name, `fetch --all`, `remote
update`/`prune`/`show`/`set-head`, `archive --remote=NAME`, `request-pull`, `maintenance run
--task=prefetch` and `submodule update` use the repository's remotes (`remote.NAME.url`,
`pushurl`, rewritten by `url.BASE.insteadOf`/`pushInsteadOf`) and its submodules' URLs
(.gitmodules, `submodule.NAME.url`); `clone`, `fetch-pack`, `send-pack` and the rest reach
a URL given as a word, rewritten by the same settings (a user's `~/.gitconfig`).
`reached_remotes` says which a command's words name; `remote_urls` (the default of
`PermissionContext.git_remote_urls`) asks git for their URLs as git reads them (a relative
path below the work tree's top, where git runs; a git directory or bare repository named as
such, as `safe.bareRepository` wants), and for the programs the configuration
makes git run to reach them (`remote.NAME.uploadpack`/`receivepack`, `remote.NAME.vcs`'s
helper, `core.sshCommand`, `core.gitProxy`: each marked `PROGRAM`); `set_remotes` reads the
remotes a command configures (`remote add|set-url`, `config remote.NAME.url`, `-c
remote.NAME.url=`), for a later fetch in the same command line."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from pathlib import Path

from tether.permissions.git_probes import git_in
from tether.permissions.option_names import (
    OptionGrammar,
    option_pairs,
    option_values,
    plain_operands,
)

ALL = "\0all"
"""In `reached_remotes`' names: every remote configured (the upstream is not known now)."""
PROGRAM = "\0runs "
"""Before a command in `remote_urls`' answer: a program git's configuration makes it run."""
URL_WORD = "\0url "
"""Before a word in `reached_remotes`' names: a URL, rewritten but not a remote's name."""
_PROGRAM_KEYS = (
    r"^(remote\..*\.(uploadpack|receivepack|vcs)|core\.(sshcommand|gitproxy)"
    r"|uploadpack\.packobjectshook)$"
)
_VALUED = frozenset(
    {"--depth", "--deepen", "--shallow-since", "--shallow-exclude", "-j", "--jobs", "-o"}
    | {"--upload-pack", "--receive-pack", "--refmap", "--negotiation-tip", "--filter"}
    | {"--server-option", "--push-option", "--exec", "--recurse-submodules-default", "-X"}
    | {"--strategy", "-s", "--strategy-option", "--reference", "--jobs", "--signed"}
)
_ALL_FLAGS = frozenset({"--all", "--multiple"})
_SUBMODULE_REACH = frozenset({"update"})


def reached_remotes(args: tuple[str, ...]) -> tuple[tuple[str, ...], bool] | None:
    """The remotes git's words from the subcommand on reach by name (`ALL`: every one), and
    whether the submodules' URLs are reached too; None for a command that reaches none."""
    if not args:
        return None
    sub, rest = args[0], args[1:]
    operands = plain_operands(rest, _VALUED)
    if sub in ("fetch", "pull", "push", "ls-remote"):
        if sub in ("fetch", "pull") and _ALL_FLAGS & set(rest):
            return (ALL,), True
        if sub == "fetch" and "--multiple" in rest:
            return (*operands, ALL), True
        named = operands[:1] or [ALL]
        return tuple(named), sub in ("fetch", "pull")
    if sub == "remote" and operands[:1] in (["update"], ["prune"], ["show"], ["set-head"]):
        return tuple(operands[1:]) or (ALL,), False
    if sub == "submodule" and set(operands[:1]) & _SUBMODULE_REACH:
        return (), True
    if sub == "archive":
        remote = option_values(rest, OptionGrammar(("--remote",), prefixes=True))
        return (tuple(remote[-1:]), False) if remote else None
    if sub == "request-pull":  # START URL [END]: it lists URL's refs
        return (URL_WORD + operands[1],) if len(operands) > 1 else (ALL,), False
    if sub == "maintenance" and operands[:1] == ["run"]:
        tasks = option_values(rest, OptionGrammar(("--task",), prefixes=True))
        return ((ALL,), False) if "prefetch" in tasks or not tasks else None
    if sub in _URL_TAKERS:
        repos = option_pairs(rest, OptionGrammar(("--repo",), prefixes=True))
        first = [v for _, v in repos[-1:] if v] or operands[:1]
        return tuple(URL_WORD + w for w in first), False
    return None


_URL_TAKERS = frozenset({"clone", "fetch-pack", "send-pack", "http-fetch", "http-push"})


def set_remotes(args: tuple[str, ...], settings: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """The (remote, URL) pairs git's words from the subcommand on configure (`remote add o
    h:r`, `remote set-url [--push] o h:r`, `config remote.o.url h:r`, `submodule add h:r`:
    as remote ALL), and those its `-c` `settings` give (`remote.o.url=h:r`, a URL rewrite's
    base `url.h:r.insteadOf=x`: as ALL)."""
    found: list[tuple[str, str]] = []
    for setting in settings:
        name, _, value = setting.partition("=")
        key = name.lower()
        if key.startswith("remote.") and key.endswith((".url", ".pushurl")):
            found.append((name[7:].rpartition(".")[0], value))
        elif key.startswith("url.") and key.endswith(("insteadof", "pushinsteadof")):
            found.append((ALL, name[4:].rpartition(".")[0]))
    if not args:
        return found
    sub, operands = args[0], plain_operands(args[1:], _VALUED)
    if sub == "remote" and operands[:1] in (["add"], ["set-url"]) and len(operands) >= 3:
        found.append((operands[1], operands[2]))
    elif sub == "submodule" and operands[:1] == ["add"] and len(operands) >= 2:
        found.append((ALL, operands[1]))
    elif sub == "config":
        words = [o for o in operands if o not in ("set", "add")]
        key = words[0].lower() if words else ""
        if len(words) >= 2 and key.startswith("remote.") and key.endswith((".url", ".pushurl")):
            found.append((words[0][7:].rpartition(".")[0], words[1]))
        elif len(words) >= 2 and key.startswith("url.") and "insteadof" in key:
            found.append((ALL, words[0][4:].rpartition(".")[0]))
    return found


def remote_urls(directory: Path, args: tuple[str, ...]) -> tuple[str, ...] | None:
    """The URLs (rewritten as git rewrites them) the git command whose words from the
    subcommand on are `args` reaches by its configuration, run in the resolved `directory`;
    () for none, None when git cannot tell."""
    reached = reached_remotes(args)
    if reached is None:
        return ()
    names, submodules = reached
    if _git_directory(directory):  # `--git-dir`: git is told, as safe.bareRepository wants
        return _urls(directory, names, submodules, ("--git-dir=.",))
    return _urls(directory, names, submodules, ())


def _git_directory(directory: Path) -> bool:
    """Whether `directory` is a repository's git directory (a bare one, or a `.git`)."""
    return (directory / "HEAD").is_file() and (directory / "objects").is_dir()


def _urls(
    directory: Path, names: tuple[str, ...], submodules: bool, base: tuple[str, ...]
) -> tuple[str, ...] | None:
    """`remote_urls` in `directory`, git's options `base` before each of its subcommands."""
    urls: list[str] = []
    for word in (n[len(URL_WORD) :] for n in names if n.startswith(URL_WORD)):
        urls += _rewritten(directory, base, word)
    names = tuple(n for n in names if not n.startswith(URL_WORD))
    listed = git_in(directory, *base, "remote")
    if listed is None:
        return _programs(directory, base, urls) if urls else ()  # no repository here: git fails
    remotes = listed.split()
    chosen = [n for n in names if n in remotes]
    if ALL in names or any(n not in remotes and ":" not in n and "/" not in n for n in names):
        chosen = remotes  # a group (`remotes.NAME`) or the upstream: any of them
    urls += [u for n in names if n not in remotes for u in _rewritten(directory, base, n)]
    for name in chosen:
        for push in ((), ("--push",)):
            found = git_in(directory, *base, "remote", "get-url", *push, "--all", name)
            if found is None:
                return None
            urls += found.splitlines()
    if submodules:
        urls += _submodule_urls(directory, remotes, base)
    return _programs(directory, base, [u for u in urls if u], chosen)


def _rewritten(directory: Path, base: tuple[str, ...], word: str) -> list[str]:
    """A URL or path given as a word (`git fetch ./r`, `git clone gh:r`) as a URL rewrite
    of the configuration (`url.BASE.insteadOf`) makes it: [] when none does (the word
    itself is judged as typed: git_policy, remote_shells), or when the rewrite is not known."""
    if ":" not in word and "/" not in word:
        return []
    found = git_in(directory, *base, "ls-remote", "--get-url", word)
    return [] if found is None or found.strip() == word else found.splitlines()


def _programs(
    directory: Path, base: tuple[str, ...], urls: list[str], remotes: Sequence[str] = ()
) -> tuple[str, ...]:
    """`urls`, a relative path made absolute below the work tree's top (where git runs), and
    the programs the configuration runs for the `remotes` reached (`PROGRAM`)."""
    top = (git_in(directory, *base, "rev-parse", "--show-toplevel") or "").strip()
    where = Path(top) if top else directory
    found = [str(where / u) if local_path(u) and not u.startswith("/") else u for u in urls]
    listed = git_in(directory, *base, "config", "-z", "--get-regexp", _PROGRAM_KEYS) or ""
    for entry in listed.split("\0"):
        key, _, value = entry.partition("\n")
        name, _, setting = key.rpartition(".")
        if not value:
            continue
        if key.startswith("remote."):
            if name[len("remote.") :] not in remotes:
                continue
            value = f"git-remote-{value} {name[len('remote.') :]}" if setting == "vcs" else value
        found.append(PROGRAM + value)
    return tuple(found)


def local_path(url: str) -> bool:
    """A URL git reads as a path on this machine: no `SCHEME://`, no `HOST:` before a slash,
    no `HELPER::`."""
    if "://" in url or "::" in url:
        return False
    head, colon, _ = url.partition(":")
    return not colon or "/" in head


def _submodule_urls(directory: Path, remotes: list[str], base: tuple[str, ...]) -> list[str]:
    """The submodules' URLs, from .gitmodules and the configuration, rewritten; a relative
    one is below a remote's URL, so each remote's URL stands for it."""
    top = (git_in(directory, *base, "rev-parse", "--show-toplevel") or "").strip()
    found: list[str] = []
    for source in ((f"--file={top}/.gitmodules",) if top else (), ()):
        listed = git_in(
            directory, *base, "config", *source, "--get-regexp", r"^submodule\..*\.url$"
        )
        for line in (listed or "").splitlines():
            url = line.partition(" ")[2].strip()
            if url.startswith(("./", "../")):
                for name in remotes:
                    got = git_in(directory, *base, "remote", "get-url", name)
                    found += (got or "").splitlines()
                continue
            found += (git_in(directory, *base, "ls-remote", "--get-url", url) or url).splitlines()
    return found


_KNOWN_SCHEMES = frozenset(
    {"http", "https", "ftp", "ftps", "ssh", "git", "file", "git+ssh", "ssh+git"}
)


_TRANSPORT = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)::")
"""`NAME::ADDRESS`, as git's transport_get reads it: a scheme's characters, then `::`."""


def transport_name(url: str) -> str | None:
    """The `NAME` of a `NAME::ADDRESS` remote (`ext`, `fd`, a helper), or None."""
    found = _TRANSPORT.match(url)
    return found.group(1) if found else None


def url_program(url: str) -> str | None:
    """The command (shell text) git runs to reach `url` itself: an `ext::CMD ARGS` URL's
    command (its words split at spaces, `% ` a space, `%%` a percent sign, `%s`/`%S` the
    service, `%G`/`%V` words dropped, as git-remote-ext reads them), or the remote helper
    `git-remote-NAME` of `NAME::ADDRESS` or of a scheme git has no transport of its own
    for; None for git's own transports and local paths."""
    if url.startswith("ext::"):
        return _ext_command(url[len("ext::") :])
    helper, sep, address = url.partition("::")
    if not sep:
        helper, sep, _ = url.partition("://")
        address = url
        if not sep or helper.lower() in _KNOWN_SCHEMES or not helper.isascii():
            return None
    if "/" in helper or not helper or helper == "fd":
        return None
    return shlex.join((f"git-remote-{helper}", address))


def _ext_command(text: str) -> str:
    words: list[str] = []
    word: list[str] = []
    dropped = False
    chars = iter(text)
    for char in chars:
        if char == " ":
            if word and not dropped:
                words.append("".join(word))
            word, dropped = [], False
        elif char == "%":
            following = next(chars, "")
            if following == "s":
                word.append("upload-pack")
            elif following == "S":
                word.append("git-upload-pack")
            elif following in "GV" and following and not word:
                dropped = True
            else:
                word.append(following)
        else:
            word.append(char)
    if word and not dropped:
        words.append("".join(word))
    return shlex.join(words)
