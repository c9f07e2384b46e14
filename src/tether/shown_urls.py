"""A URL as messages, logs and webhooks may show it: without what can be a secret. Userinfo
(`user:password@`), the query (`?api_key=...`, `?sig=...`) and the fragment never show; the
path shows only where the caller asks for it (a webhook's or hook's path can be its secret, as
a Slack URL's is; a model endpoint's `/v1` is not). Every place that names a configured URL in
a message uses `shown_url`."""

from __future__ import annotations

from urllib.parse import unquote, urlsplit


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


def http_url_problem(url: str) -> str | None:
    """Why `url` is not an http(s) URL that can be connected to, in a few words, or None: the
    one check of every URL a setting or variable names (hooks, webhooks, telemetry), so that
    a port out of range, a port that is no number or an unclosed bracket is refused when the
    setting is read, not met as a traceback at the first send. The scheme in any case
    (`HTTP://` is `http://`)."""
    if any(c.isspace() or not c.isprintable() for c in url):
        return "a URL holds no spaces or control characters"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number, or out of range, raises here
    except ValueError as e:
        return str(e)
    if parts.scheme.lower() not in ("http", "https"):
        return "expected an http:// or https:// URL"
    if not parts.hostname:
        return "the URL names no host"
    return None


def without_secrets(text: str, url: str) -> str:
    """`text` (a library's error message, which may quote the URL it was given) with `url`'s
    secrets taken out where they appear: its userinfo (`user:password@`), query (`?...`) and
    fragment (`#...`) as the URL spells them, and the password, query and fragment alone
    (also percent-decoded) when they are 3 characters or more: a shorter one is no secret worth
    the words it would garble. The user name alone is not a secret and stays. Apply it to the
    library's words only, never to a message's own prefix."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return text
    netloc = parts.netloc
    marked = [netloc.rpartition("@")[0] + "@"] if "@" in netloc else []
    marked += [f"?{parts.query}"] if parts.query else []
    marked += [f"#{parts.fragment}"] if parts.fragment else []
    bare = (parts.password or "", parts.query, parts.fragment)
    marked += [form for s in bare for form in {s, unquote(s)} if len(form) >= 3]
    for secret in sorted(marked, key=len, reverse=True):
        text = text.replace(secret, "…")
    return text
