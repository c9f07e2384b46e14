"""Programs built on ssh that name their hosts their own way, as the `ssh HOST` they start (a
host only their configuration names is any: `DYN`). podman's `--url`/`$CONTAINER_HOST`
`ssh://` and its named connections (`--connection`, `--remote`); libvirt's `qemu+ssh://`
and `+libssh` URIs (`virsh -c`, `$LIBVIRT_DEFAULT_URI`, virt-*); xpra's `ssh:`/`ssh://`
displays; sshuttle's `-r [USER@]HOST[:PORT]` (read with its own grammar, argparse's);
fabric's `-H` hosts; pyinfra's inventory (a host, or a file of hosts; `@local` and the other
`@` connectors are not ssh); salt-ssh's roster; rdiff-backup's `HOST::PATH`; the parallel
shells (pssh and its relatives, pdsh, dsh, clush): their `-H`/`-w`/`-m` hosts, or those a
file or group names. restic's `rclone:` repository runs rclone, whose remote may be reached
by ssh."""

from __future__ import annotations

import re

from tether.permissions.option_names import OptionGrammar, option_values, plain_operands
from tether.permissions.shell_words import DYN

Argv = tuple[str, ...]
Assignments = tuple[tuple[str, str], ...]

_SSH_URI = re.compile(r"^[a-z0-9]+\+(?:lib)?ssh2?://(?:[^@/]*@)?(\[[^\]/]*\]|[^/:?#]*)", re.I)
_SSH_ADDRESS = re.compile(r"^ssh:(?://)?(?:[^@/]*@)?(\[[^\]/]*\]|[^/:?#]*)", re.I)
# Parallel shells: the options naming hosts, and those naming a file or group of hosts.
_PARALLEL_SHELLS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "pssh": (("-H", "--host"), ("-h", "--hosts")),
    "parallel-ssh": (("-H", "--host"), ("-h", "--hosts")),
    "pscp": (("-H", "--host"), ("-h", "--hosts")),
    "pscp.pssh": (("-H", "--host"), ("-h", "--hosts")),
    "parallel-scp": (("-H", "--host"), ("-h", "--hosts")),
    "prsync": (("-H", "--host"), ("-h", "--hosts")),
    "parallel-rsync": (("-H", "--host"), ("-h", "--hosts")),
    "pslurp": (("-H", "--host"), ("-h", "--hosts")),
    "parallel-slurp": (("-H", "--host"), ("-h", "--hosts")),
    "pnuke": (("-H", "--host"), ("-h", "--hosts")),
    "parallel-nuke": (("-H", "--host"), ("-h", "--hosts")),
    "pdsh": (("-w",), ("-g", "-a")),
    "pdcp": (("-w",), ("-g", "-a")),
    "rpdcp": (("-w",), ("-g", "-a")),
    "dsh": (("-m", "--machine"), ("-g", "--group", "-a", "--all", "-f", "--file")),
    "clush": (("-w", "--nodes"), ("-g", "--group", "-a", "--all")),
    "clubak": (("-w",), ()),
    "fab": (("-H", "--hosts"), ()),
}
_LIBVIRT = frozenset(
    {"virsh", "virt-install", "virt-viewer", "virt-clone", "virt-manager", "virt-xml"}
    | {"virt-top", "virt-df", "virt-admin", "virt-sysprep", "virt-customize", "guestfish"}
)
_PODMAN = frozenset({"podman", "podman-remote"})

FAMILY = frozenset(
    {*_PARALLEL_SHELLS, *_LIBVIRT, *_PODMAN, "xpra", "pyinfra", "salt-ssh", "rdiff-backup"}
    | {"sshuttle"}
)


def family_hosts(name: str, args: Argv, assignments: Assignments) -> list[str]:
    """The ssh hosts program `name` of the family reaches with `args` (`DYN`: any)."""
    if name in _PARALLEL_SHELLS:
        named, listed = _PARALLEL_SHELLS[name]
        hosts = [h for v in valued(args, named) for h in re.split(r"[,\s]+", v) if h]
        # A hostlist range (`h[1-3]`), a group (`@g`) or a file (`^f`): any host.
        hosts = [
            DYN if "[" in h or h.startswith(("@", "^")) else h.rpartition("@")[2].partition(":")[0]
            for h in hosts
        ]
        hosts = [h or DYN for h in hosts]
        if valued(args, listed):
            hosts.append(DYN)  # a file or group of hosts
        if not hosts and name not in ("fab", "clubak"):
            hosts.append(DYN)  # the hosts its configuration or environment names
        return hosts
    if name in _LIBVIRT:
        uris = valued(args, ("-c", "--connect"))
        uris += [v for k, v in assignments if k in ("LIBVIRT_DEFAULT_URI", "VIRSH_DEFAULT_URI")]
        return [m.group(1) or "localhost" for u in uris if (m := _SSH_URI.match(u))]
    if name in _PODMAN:
        urls = valued(args, ("--url", "--host", "-H"))
        urls += [v for k, v in assignments if k in ("CONTAINER_HOST", "DOCKER_HOST")]
        hosts = [m.group(1) or "localhost" for u in urls if (m := _SSH_ADDRESS.match(u))]
        if valued(args, ("--connection", "-c", "--remote", "-r")):
            hosts.append(DYN)  # a connection its configuration names
        if any(k in ("CONTAINER_CONNECTION", "CONTAINERS_CONF") for k, _ in assignments):
            hosts.append(DYN)
        return hosts
    if name == "xpra":
        words = [a.partition("=")[2] if a.startswith("--") else a for a in args]
        return [m.group(1) or DYN for w in words if (m := _SSH_ADDRESS.match(w))]
    if name == "pyinfra":
        operands = plain_operands(args, _PYINFRA_VALUED)
        if not operands or operands[0].startswith("@local") or operands[0] == "@docker":
            return []
        return [DYN if "/" in operands[0] or operands[0].endswith(".py") else operands[0]]
    if name == "salt-ssh":
        return [DYN]
    if name == "sshuttle":
        return _sshuttle(args)
    if name == "rdiff-backup":
        return [w.partition("::")[0].rpartition("@")[2] or DYN for w in args if "::" in w]
    return []


_PYINFRA_VALUED = frozenset(
    {"--user", "--port", "--key", "--key-password", "--password", "--sudo-user", "--su-user"}
    | {"--parallel", "--data", "--group-data", "--config", "--chdir", "--limit", "--shell"}
)


_SSHUTTLE = OptionGrammar(
    ("-r", "--remote"),
    grouped=True,
    prefixes=True,
    known=(
        *("--remote-shell", "--python", "--pidfile", "--listen", "--dns", "--daemon", "--exclude"),
        *("--exclude-from", "--auto-hosts", "--auto-nets", "--ssh-cmd", "--seed-hosts"),
        *("--verbose", "--version", "--method", "--user", "--group", "--to-ns", "--ns-hosts"),
    ),
    stops=True,
)
"""sshuttle's options as argparse reads them: `-r HOST`, `-rHOST`, `-vr HOST`, `--remote=HOST`,
and any unambiguous prefix of a long option (`--rem HOST`)."""


def _sshuttle(args: Argv) -> list[str]:
    """sshuttle's `-r [USER[:PASSWORD]@]HOST[:PORT]` (`[ADDR]:PORT` for IPv6); an argument
    file (`@FILE`, argparse's) may name any host. Without `-r` its server runs here."""
    hosts: list[str] = []
    for value in option_values(args, _SSHUTTLE):
        address = value.rpartition("@")[2]
        host = address[1:].partition("]")[0] if address.startswith("[") else address
        hosts.append(host.partition(":")[0] if not address.startswith("[") else host)
    files = [DYN] if any(a.startswith("@") for a in args) else []
    return [*files, *(h or DYN for h in hosts)]


_FLAGS = frozenset({"-a", "--all", "--remote", "-r"})


def valued(args: Argv, options: tuple[str, ...]) -> list[str]:
    """The values of `options` (`-H X`, `-HX`, `--hosts=X`, `--hosts X`); a flag among
    them (`-a`, `--all`) counts with an empty value."""
    return option_values(args, OptionGrammar(options, flags=_FLAGS & set(options), stops=False))
