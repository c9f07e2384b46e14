"""Programs that start ssh for a remote path in their operands, as the `ssh HOST` they run: a deny
or ask rule on `ssh` (`Bash(ssh *)`) holds for them too (equivalents.py). `scp`, `sftp` (whose
host needs no colon: `sftp HOST`) and `rsync` (without `-e`, whose command is judged as written)
reach `[USER@]HOST:PATH` or `[USER@][HOST]:PATH` by ssh; `sshfs HOST:DIR` mounts by ssh; git's
transport commands (`clone`, `fetch`, `pull`, `push`, `ls-remote`, `archive --remote`,
`fetch-pack`, `send-pack`, `request-pull`) reach `HOST:PATH` and `ssh://` URLs by ssh, as do
hg's `ssh://` and svn's `svn+ssh://` ones. tar, cpio, mt, dump and restore write or read an
archive or tape named `HOST:PATH` through a remote shell (rsh, ssh on most systems), tar's
default one from `$TAPE`, unless `--force-local` says the colon is part of a local name.
`rsync://` and `HOST::MODULE` talk to an rsync daemon directly. mosh, autossh and ssh-copy-id
are ssh to their host; GNU parallel's `--sshlogin` hosts, unison's and lftp's ssh roots and
URLs, restic's and borg's remote repositories, and ansible's inventory are reached by ssh
(`_ssh_user`); so are duplicity's ssh-family URLs and rclone's on-the-fly remotes
(`:sftp,host=H:`; a named one's type is in its configuration: rclone_remotes)
(`_other_remotes`); the rest of ssh's family (parallel shells, libvirt, podman...) is in
ssh_family.py."""

from __future__ import annotations

import re
import shlex

from tether.permissions.deleting_equivalents import Equivalent
from tether.permissions.git_names import subcommand_at
from tether.permissions.option_names import OptionGrammar, option_values, plain_operands
from tether.permissions.program_commands import PROGRAM_COMMANDS
from tether.permissions.rclone_paths import PATH_VARIABLES
from tether.permissions.shell_words import DYN, STAR, program_name, readable
from tether.permissions.ssh_family import FAMILY, family_hosts
from tether.permissions.tar_words import tar_words

Argv = tuple[str, ...]
Assignments = tuple[tuple[str, str], ...]

_TAR = frozenset({"tar", "gtar"})
_SSH_COPIERS = frozenset({"scp", "rsync"})
# Tape programs naming their device or archive `HOST:PATH` (rmt through a remote shell).
_TAPES = {
    "cpio": ("-F", "-O", "-I", "--file"),
    "mt": ("-f", "-t", "--file"),
    "dump": ("-f",),
    "rdump": ("-f",),
    "restore": ("-f",),
    "rrestore": ("-f",),
}
# sftp's options taking a value (`-S PROG` and `-D PROG` run PROG instead of ssh).
_SFTP_VALUED = frozenset("BbcDFiJloPRSsX")
_GIT_TRANSPORTS = frozenset(
    {"clone", "fetch", "pull", "push", "ls-remote", "fetch-pack", "send-pack", "request-pull"}
)
_GIT_VALUED = frozenset(
    {"--depth", "--deepen", "--shallow-since", "--shallow-exclude", "-j", "--jobs"}
    | {"-o", "--origin", "-b", "--branch", "--upload-pack", "-u", "--receive-pack", "--repo"}
    | {"--reference", "--reference-if-able", "--separate-git-dir", "--template", "-c"}
    | {"--config", "--server-option", "--filter", "--negotiation-tip", "--refmap", "--exec"}
)
_SSH_SCHEMES = frozenset({"ssh", "git+ssh", "ssh+git", "svn+ssh", "sftp", "scp"})
_BRACKETED = re.compile(r"(?:[^@/\[]*@)?\[([^\]/]+)\]:(.*)", re.DOTALL)
_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://(?:[^@/]*@)?(\[[^\]/]*\]|[^/:?#]*)")


def remote_shell_equivalent(argv: Argv, assignments: Assignments = ()) -> Equivalent | None:
    """`ssh HOST` for the first remote operand `argv` reaches by a remote shell, and what
    starts it in words; None when it reaches none. `assignments` are the command's own
    (`TAPE=h:x tar -c`)."""
    name = program_name(argv[0])
    args = argv[1:]
    daemon = name == "rsync"
    if name in _TAR:
        words = tar_words(args)
        if words.force_local:
            return None
        operands = list(words.archives) or [v for k, v in assignments if k == "TAPE"]
    elif name in _SSH_COPIERS:
        if name == "rsync" and any(a in ("-e", "--rsh") or a.startswith("--rsh=") for a in args):
            return None
        operands = plain_operands(args, PROGRAM_COMMANDS[name].valued_options)
    elif name == "sftp":
        return _sftp(args)
    elif name in _TAPES:
        operands = _valued(args, _TAPES[name])
    elif name == "git":
        operands = _git_remotes(argv)
        daemon = True  # `HOST::x` is a remote helper's address, not ssh's
    elif name in _SSH_ITSELF or name in _SSH_USERS:
        return _ssh_user(name, args, assignments)
    elif name in _ANSIBLE:
        return _ansible(args)
    elif name in FAMILY:
        hosts = family_hosts(name, args, assignments)
        does = f"`{name}` reaches {readable(hosts[0])} by ssh" if hosts else ""
        return Equivalent((("ssh", hosts[0]),), does) if hosts else None
    elif name in _MORE_SSH:
        return _other_remotes(name, args)
    elif name == "cvs":
        return _cvs(args, assignments)
    elif name in ("hg", "svn", "sshfs"):
        operands = [arg for arg in args if not arg.startswith("-")]
        if name != "sshfs":
            operands = [arg for arg in operands if "://" in arg]
    else:
        return None
    for operand in operands:
        host = remote_host(operand, daemon=daemon)
        if host is not None:
            does = f"`{name}` reaches {readable(operand)} by ssh"
            return Equivalent((("ssh", host),), does)
    return None


REACH_VARIABLES = frozenset(
    {"TAPE", "CVSROOT", "PARALLEL", "RESTIC_REPOSITORY", "RESTIC_REPOSITORY_FILE", "BORG_REPO"}
    | {"LIBVIRT_DEFAULT_URI", "VIRSH_DEFAULT_URI", "CONTAINER_HOST", "DOCKER_HOST"}
    | {"CONTAINER_CONNECTION", "CONTAINERS_CONF", "RCLONE_CONFIG"}
    | PATH_VARIABLES  # rclone's `RCLONE_CACHE_DIR`, `RCLONE_LOG_FILE`...: where it writes
)
"""The variables naming where these programs reach (`$CVSROOT`, `$TAPE`, `$BORG_REPO`...): one
a shell assignment or `export` sets earlier on the line holds for the commands after it
(shell_walker), as it does for the command it prefixes."""

_CVS_REMOTE = re.compile(r":(?:ext|extssh|ssh|server)(?:;[^:]*)?:(?:[^@:/]*@)?([^:/]*)", re.I)
"""A CVSROOT reached through a remote shell (`:ext:` starts `$CVS_RSH`, ssh by default;
CVSNT's `:ssh:`/`:extssh:`; `:server:` is rsh's): `[;OPTIONS]:[USER@]HOST`."""


def _cvs(args: Argv, assignments: Assignments) -> Equivalent | None:
    """cvs's repository from `-d ROOT`, `-dROOT` (before its command) or `$CVSROOT`."""
    roots = [v for k, v in assignments if k == "CVSROOT"]
    i = 0
    while i < len(args) and args[i].startswith("-"):  # global options, before the command
        arg = args[i]
        if arg == "-d":
            roots.append(args[i + 1] if i + 1 < len(args) else "")
        elif arg.startswith("-d"):
            roots.append(arg[2:])
        i += 2 if arg in ("-d", "-e", "-s", "-T", "-z") else 1
    for root in roots:
        found = _CVS_REMOTE.match(root) if root != DYN else None
        if found is not None or "$" in root or root == DYN:
            host = found.group(1) if found is not None and found.group(1) else DYN
            return Equivalent((("ssh", host),), f"`cvs` reaches {readable(root)} by ssh")
    return None


_SSH_ITSELF = {
    # Programs that are ssh to their first operand, with ssh's options (and their own).
    "mosh": frozenset({"-p", "--port", "--ssh", "--server", "--client", "--predict"}),
    "autossh": PROGRAM_COMMANDS["ssh"].valued_options | {"-M", "-i", "-E", "-o", "-F"},
    "ssh-copy-id": frozenset({"-i", "-p", "-o", "-t", "-F", "-J"}),
}
_SSH_USERS = frozenset({"parallel", "sem", "unison", "lftp", "restic", "borg", "borgmatic"})
_ANSIBLE = frozenset({"ansible", "ansible-playbook", "ansible-console", "ansible-inventory"})
_SSH_URL = re.compile(r"(?:sftp|fish|ssh|rsh)://[^\s'\";,]*", re.IGNORECASE)


def _ssh_user(name: str, args: Argv, assignments: Assignments) -> Equivalent | None:
    """Programs that start ssh for a host their options, operands or environment name: mosh,
    autossh and ssh-copy-id (ssh to their first operand); GNU parallel's (and `sem`'s)
    `-S`/`--sshlogin` hosts, in `$PARALLEL` too (`:` is this machine; a login file's hosts are
    any); unison's and lftp's `ssh://`, `sftp://`, `fish://`, `rsh://` roots and URLs (lftp's
    inside `-c`/`-e` commands too); restic's `sftp:` repository (`-r`, `--repo`,
    `$RESTIC_REPOSITORY`; an `rclone:` one or a `--repository-file`/`$RESTIC_REPOSITORY_FILE`
    may be any); borg's ssh or `HOST:PATH` repository (operands, `$BORG_REPO`); ansible's hosts
    (ssh unless `-c local`)."""
    hosts: list[str] = []
    if name in _SSH_ITSELF:
        hosts = plain_operands(args, _SSH_ITSELF[name])[:1]
        hosts = [h.rpartition("@")[2] for h in hosts]
    elif name in ("parallel", "sem"):
        # `$PARALLEL` holds options read before the command line's.
        words = [w for k, v in assignments if k == "PARALLEL" for w in _split(v)]
        for value in _valued((*words, *args), ("-S", "--sshlogin")):
            logins = [login.strip() for login in value.split(",")]
            hosts += [x.rpartition("/")[2].rpartition("@")[2] for x in logins]
            hosts = [h for h in hosts if h not in ("", ":")]  # `:` is this machine
        if _valued((*words, *args), ("--slf", "--sshloginfile")):
            hosts.append(DYN)  # the hosts a file lists
    elif name in ("unison", "lftp"):
        hosts = [h for a in args for url in _SSH_URL.findall(a) if (h := _url_host(url))]
    elif name == "restic":
        repos = _valued(args, ("-r", "--repo")) + [
            v for k, v in assignments if k == "RESTIC_REPOSITORY"
        ]
        hosts = [_sftp_repo_host(r) for r in repos if r.lower().startswith("sftp:")]
        # rclone's remote may be reached by ssh; a repository file names any repository.
        hosts += [DYN for r in repos if r.lower().startswith("rclone:")]
        files = _valued(args, ("--repository-file",))
        if files or any(k == "RESTIC_REPOSITORY_FILE" for k, _ in assignments):
            hosts.append(DYN)
    elif name in ("borg", "borgmatic"):
        words = [a for a in args if not a.startswith("-")]
        words += [v for k, v in assignments if k == "BORG_REPO"]
        hosts = [h for w in words if (h := remote_host(w, daemon=True)) is not None]
    if not hosts:
        return None
    return Equivalent((("ssh", hosts[0]),), f"`{name}` reaches {readable(hosts[0])} by ssh")


_MORE_SSH = frozenset({"rclone", "duplicity", "duply"})
_DUPLICITY_SSH = re.compile(r"(?:[a-z]+\+)?(?:scp|sftp|ssh|fish)://|rsync://[^/]*[^:/]/", re.I)
_RCLONE_LOCAL = frozenset({"local", "alias", "crypt", "chunker", "union", "combine", "hasher"})


def _other_remotes(name: str, args: Argv) -> Equivalent | None:
    """duplicity's ssh-family URLs (`sftp://`, `pexpect+scp://`, rsync over ssh:
    `rsync://HOST/PATH`); rclone's on-the-fly remotes: an `:sftp:` one (one that only names
    local files, `:local:`, reaches none); a named `REMOTE:` is read in rclone_remotes."""
    hosts: list[str] = []
    if name in ("duplicity", "duply"):
        hosts = [_url_host(a) or DYN for a in args if _DUPLICITY_SSH.match(a)]
    else:
        # A named remote's type is in rclone's configuration, read by rclone_remotes.
        for arg in (a for a in args if a.startswith(":")):
            remote, colon, _ = arg.removeprefix(":").partition(":")
            if colon and "/" not in remote and remote.split(",")[0] not in _RCLONE_LOCAL:
                hosts.append(_rclone_host(arg))
    if not hosts:
        return None
    return Equivalent((("ssh", hosts[0]),), f"`{name}` reaches {readable(hosts[0])} by ssh")


def _rclone_host(arg: str) -> str:
    """`:sftp,host=h:path`: h; a named remote or another backend: any host (DYN)."""
    backend = arg.removeprefix(":").partition(":")[0]
    found = re.search(r",host=([^,:]+)", backend)
    return found.group(1) if found else DYN


def _split(value: str) -> list[str]:
    """An options variable's words, as the program splits them (a shell's words)."""
    try:
        return shlex.split(value)
    except ValueError:
        return [DYN]


def _url_host(url: str) -> str:
    match = _URL.match(url)
    return (match.group(2).strip("[]") if match else "") or "localhost"


def _sftp_repo_host(repo: str) -> str:
    """restic's `sftp:[USER@]HOST:PATH` or `sftp://[USER@]HOST[:PORT]//PATH`."""
    if "://" in repo:
        return _url_host(repo)
    return repo[len("sftp:") :].partition(":")[0].rpartition("@")[2] or DYN


def _ansible(args: Argv) -> Equivalent | None:
    """ansible's hosts, reached by ssh unless a connection plugin that is not says otherwise."""
    for connection in _valued(args, ("-c", "--connection")):
        if connection in ("local", "docker", "podman", "kubectl", "chroot", "winrm", "psrp"):
            return None
    return Equivalent((("ssh", DYN),), "`ansible` reaches its inventory's hosts by ssh")


def remote_host(word: str, *, daemon: bool) -> str | None:
    """The host of `[USER@]HOST:PATH` (a colon before any slash), `[USER@][HOST]:PATH` or an
    ssh URL; None for a local path, another URL or, for rsync, a daemon's address. A host
    known only as the command runs is any (`$H:x`; `[::1]:x` is a glob that matches nothing)."""
    url = _URL.match(word)
    if url is not None:
        scheme, host = url.group(1).lower(), url.group(2).strip("[]")
        return host or "localhost" if scheme in _SSH_SCHEMES else None
    bracketed = _BRACKETED.fullmatch(word)
    if bracketed is not None:
        host, rest = bracketed.groups()
    else:
        head, colon, rest = word.partition(":")
        if not colon or not head or "/" in head or STAR in head:
            return None  # `*:x` is a pattern (`--exclude '*:*'`), no host
        host = head.rpartition("@")[2]
    if daemon and rest.startswith(":"):
        return None
    return host or None


def _sftp(args: Argv) -> Equivalent | None:
    """sftp's destination, its first operand (`[USER@]HOST[:PATH]`, `sftp://`): reached by
    ssh unless `-S` or `-D` names the program it runs instead (judged as a command)."""
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("-") and len(arg) > 1 and arg != "--":
            letters = arg[1:]
            at = next((k for k, c in enumerate(letters) if c in _SFTP_VALUED), -1)
            if at >= 0 and letters[at] in "SD":
                return None
            skip = at == len(letters) - 1
        elif arg != "--":
            bare = "://" not in arg and (":" not in arg or arg.endswith("]"))
            host = remote_host(f"{arg}:" if bare else arg, daemon=False)
            if host is None:
                return None
            return Equivalent((("ssh", host),), f"`sftp` reaches {readable(arg)} by ssh")
    return None


def _valued(args: Argv, options: tuple[str, ...]) -> list[str]:
    """The values of `options` (`-f X`, `-fX`, `-0f X` grouped, `--file=X`, `--fil X`)."""
    return option_values(args, OptionGrammar(options, grouped=True, prefixes=True, stops=False))


def _git_remotes(argv: Argv) -> list[str]:
    """The repositories git's transport commands reach: every operand of `clone` and
    `ls-remote`, the first of `fetch`, `pull`, `push`, `fetch-pack` and `send-pack` (the
    rest are refspecs), `request-pull`'s URL and `archive --remote`."""
    at = subcommand_at(argv)
    if at >= len(argv):
        return []
    sub, rest = argv[at], argv[at + 1 :]
    if sub == "archive":
        return _valued(rest, ("--remote",))
    if sub not in _GIT_TRANSPORTS:
        return []
    repos = _valued(rest, ("--repo",))  # `--repo=X` and `--repo X`
    operands = plain_operands(rest, _GIT_VALUED)
    if sub == "request-pull":  # START URL [END]
        return operands[1:2]
    return [*repos, *(operands if sub in ("clone", "ls-remote") else operands[:1])]
