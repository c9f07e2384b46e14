"""git's servers, each asked: `git daemon` serves the repositories it exports (any directory
on the machine with `--base-path=/ --export-all`, pushes with `--enable=receive-pack`) to
whoever reaches its port; without `--listen=ADDRESS` that is every interface (git's default),
said so as `hg serve` off loopback is (hg_serve), and on loopback every local process, or
over its standard streams with `--inetd`; `--pid-file` writes where it says. `upload-pack`,
`upload-archive` and `receive-pack` serve the repository they name over their standard
streams (`receive-pack` writes its objects and refs and runs its hooks), `http-backend` the
repositories its environment names."""

from __future__ import annotations

from collections.abc import Sequence

from tether.permissions.shell_words import is_literal, readable

_EXPOSED = "whoever reaches it reads the repositories it exports"
_LOOPBACK = frozenset({"localhost", "::1", "[::1]", "ip6-localhost"})


_SERVERS = {
    "upload-pack": "serves the history of the repository it names",
    "upload-archive": "serves archives of the repository it names",
    "receive-pack": "writes what it is sent into the repository it names and runs its hooks",
    "http-backend": "serves the repositories its environment names",
}


def served_repositories(subcommand: str, rest: Sequence[str]) -> str | None:
    """Why git's `subcommand REST...` serves repositories (asked); None for another command."""
    if subcommand == "daemon":
        exposure = daemon_exposure(rest)
        if exposure is not None:
            return exposure
        where = "over its standard streams" if "--inetd" in rest else "to every local process"
        return f"git daemon serves the repositories it exports {where}"
    does = _SERVERS.get(subcommand)
    return f"git {subcommand} {does}, to whoever speaks to it" if does is not None else None


def daemon_exposure(rest: Sequence[str]) -> str | None:
    """Why `git daemon REST...` opens repositories to the network; None when it does not."""
    addresses: list[str] = []
    for word in rest:
        if word == "--":
            break
        if word == "--inetd":
            return None
        name, eq, value = word.partition("=")
        if name == "--listen":
            addresses.append(value if eq else "")
    if not addresses:
        return f"git daemon listens on every interface (no `--listen=127.0.0.1`): {_EXPOSED}"
    for address in addresses:
        if not is_literal(address):
            return f"git daemon listens on an address known only as it runs: {_EXPOSED}"
        if not (address in _LOOPBACK or address.startswith("127.")):
            return f"git daemon listens on {readable(address) or 'every interface'}: {_EXPOSED}"
    return None
