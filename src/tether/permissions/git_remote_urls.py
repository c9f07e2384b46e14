"""The hosts git reaches by its configuration, not by a URL on the command line: `git fetch`,
`pull`, `push`, `ls-remote` with no repository or a remote's name, `fetch --all`, `remote
update`/`prune`/`show`, and `submodule update` use the repository's remotes
(`remote.NAME.url`, `pushurl`, rewritten by `url.BASE.insteadOf`/`pushInsteadOf`) and its
submodules' URLs (.gitmodules, `submodule.NAME.url`). `reached_remotes` says which a
command's words name; `remote_urls` (the default of `PermissionContext.git_remote_urls`)
asks git for their URLs as git reads them; `set_remotes` reads the remotes a command
configures (`remote add|set-url`, `config remote.NAME.url`, `-c remote.NAME.url=`), for a
later fetch in the same command line."""

from __future__ import annotations

from pathlib import Path

from tether.permissions.git_probes import git_in
from tether.permissions.option_names import option_pairs, plain_operands

ALL = "\0all"
PROGRAM = "\0program:"
"""Before a program a remote's `uploadpack`/`receivepack` setting names, among the URLs."""
"""In `reached_remotes`' names: every remote configured (the upstream is not known now)."""
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
        return tuple(operands[1:2]) or (ALL,), False
    if sub == "submodule" and set(operands[:1]) & _SUBMODULE_REACH:
        return (), True
    if sub == "archive":
        remote = [pair[1] for pair in option_pairs(rest, ("--remote",), prefixes=True)]
        return (tuple(remote[-1:]), False) if remote else None
    return None


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
    listed = git_in(directory, *base, "remote")
    if listed is None:
        return ()  # no repository here: git fails
    remotes = listed.split()
    chosen = [n for n in names if n in remotes]
    if ALL in names or any(n not in remotes and ":" not in n and "/" not in n for n in names):
        chosen = remotes  # a group (`remotes.NAME`) or the upstream: any of them
    urls: list[str] = []
    for name in chosen:
        for push in ((), ("--push",)):
            found = git_in(directory, *base, "remote", "get-url", *push, "--all", name)
            if found is None:
                return None
            urls += found.splitlines()
        for setting in ("uploadpack", "receivepack"):
            found = git_in(directory, *base, "config", "--get-all", f"remote.{name}.{setting}")
            urls += [PROGRAM + line for line in (found or "").splitlines() if line]
    if submodules:
        urls += _submodule_urls(directory, remotes, base)
    return tuple(u for u in urls if u)


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
