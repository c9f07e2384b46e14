"""A URL as messages, logs and webhooks may show it: without what can be a secret. Userinfo
(`user:password@`), the query (`?api_key=...`, `?sig=...`) and the fragment never show; the
path shows only where the caller asks for it (a webhook's or hook's path can be its secret, as
a Slack URL's is; a model endpoint's `/v1` is not). Every place that names a configured URL in
a message uses `shown_url`."""

from __future__ import annotations

from urllib.parse import urlsplit


def shown_url(url: str, *, path: bool = False) -> str:
    """`scheme://host[:port]` (and the path when `path`), for messages. A URL too broken to
    read shows as `<unreadable URL>` rather than in full: it may hold a password."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "<unreadable URL>"
    host = parts.hostname or ""
    if not parts.scheme or not host:
        return "<unreadable URL>" if "@" in url or "?" in url else url
    host = f"[{host}]" if ":" in host else host
    shown = f"{parts.scheme}://{host}" + (f":{port}" if port is not None else "")
    return shown + parts.path if path else shown
