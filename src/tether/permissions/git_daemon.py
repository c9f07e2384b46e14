"""`git daemon` as a server open to the network: without `--listen=ADDRESS` it listens on every
interface (git's default), where whoever reaches its port reads the repositories it exports
(and pushes to them with `--enable=receive-pack`): asked, as `hg serve` off loopback is
(hg_serve). Every `--listen` on a loopback address, or `--inetd` (its standard streams),
leaves it as before."""

from __future__ import annotations

from collections.abc import Sequence

from tether.permissions.shell_words import is_literal, readable

_EXPOSED = "whoever reaches it reads the repositories it exports"
_LOOPBACK = frozenset({"localhost", "::1", "[::1]", "ip6-localhost"})


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
