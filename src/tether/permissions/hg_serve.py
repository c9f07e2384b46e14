"""`hg serve` as a server open to the network: without `-a`/`--address` it listens on every
interface (hg's default), where whoever reaches the port reads the repository's history (and
pushes to it where the repository's configuration allows): asked, as node's `--inspect` on a
host other than loopback is. On a loopback address, or speaking over its standard streams
(`--stdio`, `--cmdserver`), it is allowed as before."""

from __future__ import annotations

from collections.abc import Sequence

from tether.permissions.option_names import OptionGrammar, option_pairs
from tether.permissions.shell_words import is_literal, readable

_VALUED = (
    *("-a", "--address", "-p", "--port", "--cmdserver", "-A", "--accesslog", "-E"),
    *("--errorlog", "--pid-file", "-n", "--name", "--web-conf", "--webdir-conf", "--prefix"),
    *("-t", "--templates", "--style", "--certificate", "--daemon-postexec"),
)
_FLAGS = frozenset({"-d", "--daemon", "--stdio", "-6", "--ipv6", "--print-url", "-S"})
_STREAMS = frozenset({"--stdio", "--cmdserver"})
_EXPOSED = "whoever reaches it reads the repository"
_LOOPBACK = frozenset({"localhost", "::1", "[::1]", "ip6-localhost"})


def serve_exposure(word: str, rest: Sequence[str], hg_global: OptionGrammar) -> str | None:
    """Why `hg WORD REST...` (WORD a prefix of `serve`, as hg takes it) opens the repository
    to the network; None when it does not. `hg_global`: hg's global options."""
    if not word or not "serve".startswith(word):
        return None
    grammar = OptionGrammar(
        (*hg_global.names, *_VALUED, *_FLAGS),
        flags=_FLAGS,
        grouped=True,
        prefixes=True,
        known=hg_global.known,
    )
    pairs = option_pairs(rest, grammar)
    if any(option in _STREAMS for option, _ in pairs):
        return None
    addresses = [value for option, value in pairs if option in ("-a", "--address")]
    if not addresses:
        return f"hg serve listens on every interface (no `-a 127.0.0.1`): {_EXPOSED}"
    address = addresses[-1]
    if is_literal(address) and (address in _LOOPBACK or address.startswith("127.")):
        return None
    return f"hg serve listens on {readable(address)}: {_EXPOSED}"
