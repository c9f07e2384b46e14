"""Which proxy from the environment a request to a URL goes through, as the model client
itself chooses it (httpx2's reading of `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` and
`NO_PROXY`, in either case): a connection error names that hop, so that a proxy that resets
or refuses is not taken for the model's host."""

from __future__ import annotations

import os
from collections.abc import Mapping

from httpx2 import URL
from httpx2._utils import URLPattern, get_environment_proxies  # the client's own reading

from tether.shown_urls import shown_url


def proxy_in_use(url: str, environ: Mapping[str, str] | None = None) -> str | None:
    """`through the proxy http://host:port (from HTTPS_PROXY)` for a request to `url` when the
    environment sends it through one (the proxy's credentials left out), else None."""
    environ = os.environ if environ is None else environ
    try:
        target = URL(url)
        mounts = sorted((URLPattern(p), proxy) for p, proxy in get_environment_proxies().items())
    except Exception:  # an unparsable URL or variable: the client failed on it otherwise
        return None
    for pattern, proxy in mounts:
        if pattern.matches(target):
            if proxy is None:
                return None  # NO_PROXY: straight to the host
            scheme = pattern.pattern.split("://", 1)[0]
            return f"through the proxy {shown_url(proxy)} (from {_variable(scheme, environ)})"
    return None


def _variable(scheme: str, environ: Mapping[str, str]) -> str:
    """The variable a proxy for `scheme` (http, https, all) was read from: the lower-case one
    wins when both are set, as urllib reads them."""
    lower = f"{scheme}_proxy"
    return lower if environ.get(lower) else lower.upper()
