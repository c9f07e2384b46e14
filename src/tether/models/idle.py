"""How long a silent model endpoint is waited for: the idle timeout and its notices.

An open connection that sends nothing (or nothing but keep-alive `ping` events: an endpoint that
never answers may send them forever) must not hold a turn for the transport's whole timeout:
after `timeout_s` seconds without a byte the attempt is given up (and retried by the loop like
any broken stream), and notices say so while it waits. Defaults, after Claude Code's byte-level
watchdog: 180 s for a hosted API, which answers with headers and `message_start` at once and
sends `ping` events during long thinking; 300 s for a server on this machine or a private
network, which may process a long prompt before its first byte.
"""

from __future__ import annotations

import ipaddress
from typing import Final
from urllib.parse import urlsplit

from tether.slotted import Slotted

IDLE_TIMEOUT_ENV = "TETHER_MODEL_IDLE_TIMEOUT_MS"
IDLE_TIMEOUT_SETTING = "tether.modelIdleTimeoutMs"

HOSTED_IDLE_TIMEOUT_S = 180.0
LOCAL_IDLE_TIMEOUT_S = 300.0
FIRST_NOTICE_S = 15.0
"""A notice after this long without a byte (or a quarter of the timeout, if shorter)."""


class IdleLimits(Slotted):
    """The idle timeout and when to say that the model is being waited for."""

    __slots__ = ("timeout_s",)
    timeout_s: Final[float]

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s

    @property
    def first_notice_s(self) -> float:
        return min(FIRST_NOTICE_S, self.timeout_s / 4)

    def notice_after(self, notices_sent: int) -> float:
        """Seconds of silence before notice number `notices_sent + 1`: 15, 30, 60, 120..."""
        return self.first_notice_s * 2**notices_sent


def default_idle_limits(base_url: str) -> IdleLimits:
    """The default for an endpoint: longer for a local or private-network server."""
    return IdleLimits(LOCAL_IDLE_TIMEOUT_S if _is_local(base_url) else HOSTED_IDLE_TIMEOUT_S)


def _is_local(base_url: str) -> bool:
    try:
        host = (urlsplit(base_url).hostname or "").lower()
    except ValueError:  # not a URL ("http://[::1"): the client says so when it is used
        return False
    if host == "localhost" or host.endswith((".localhost", ".local", ".internal", ".lan")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local
