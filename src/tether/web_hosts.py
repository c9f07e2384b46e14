"""Hosts in one spelling, so that every comparison of them agrees: WebFetch's permission rules
(`WebFetch(domain:HOST)`), the rule offered for a fetch, the redirects WebFetch follows and
WebSearch's domain lists. `Example.COM.`, `example.com`, `EXAMPLE.com` are one host, as are
`bücher.example` and `xn--bcher-kva.example`, and `127.0.0.1`, `127.1`, `0x7f.0.0.1`,
`2130706433` and `::ffff:127.0.0.1` (every one reaches the same address)."""

from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import urlsplit

_NAME_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?")
"""A label of a host name in ASCII (underscores occur in real names, as in `_dmarc`)."""
_NUMBER = re.compile(r"0x[0-9a-f]*|[0-9]+")
"""A part of an IPv4 address as C's `inet_aton` (and so the resolver) reads it."""
_UNSAFE_IN_AUTHORITY = re.compile(r"[\\\s\x00-\x1f\x7f]")
"""What parsers read differently in a URL's authority (`a.com\\@b.com`): such a URL has no
host we can be sure of."""


def canonical_host(host: str) -> str | None:
    """`host` in its one spelling: lower case, without the trailing dot of a fully qualified
    name, international labels in IDNA (punycode), an IPv4 address in any notation the
    resolver takes as a dotted quad, an IPv6 address compressed (one mapping an IPv4 address
    as that address). None when it is no host name (an empty label, a character no name
    holds, an IPv4-looking name no address has)."""
    host = host.strip("[]") if host.startswith("[") and host.endswith("]") else host
    if ":" in host:
        try:
            address = ipaddress.IPv6Address(host)
        except ValueError:
            return None
        mapped = address.ipv4_mapped
        return str(mapped) if mapped is not None else str(address)
    name = host.lower()
    name = name[:-1] if name.endswith(".") else name
    labels = name.split(".")
    if all(_NUMBER.fullmatch(label) for label in labels):
        try:
            return socket.inet_ntoa(socket.inet_aton(name))
        except OSError:
            return None
    if not name.isascii():
        import idna  # its tables load only for a name that needs them

        try:
            name = idna.encode(name).decode("ascii")
        except idna.IDNAError:
            return None
        labels = name.split(".")
    if not all(_NAME_LABEL.fullmatch(label) for label in labels):
        return None
    return name


def canonical_host_pattern(pattern: str) -> str | None:
    """A host pattern (`*.example.com.`, `Bücher.example`) in the spelling `canonical_host`
    gives hosts: its labels without `*` spelt as a host's, those with it in lower case.
    None when a label is no host label."""
    pattern = pattern.strip()
    if "*" not in pattern:
        return canonical_host(pattern)
    pattern = pattern.lower()
    pattern = pattern[:-1] if pattern.endswith(".") else pattern
    labels: list[str] = []
    for label in pattern.split("."):
        if "*" in label:
            if not all(_NAME_LABEL.fullmatch(part) for part in label.split("*") if part):
                return None
            labels.append(label)
            continue
        if _NUMBER.fullmatch(label):  # a part of an address (`192.168.*`)
            labels.append(label)
            continue
        spelt = canonical_host(label)
        if spelt is None or "." in spelt or not _NAME_LABEL.fullmatch(spelt):
            return None
        labels.append(spelt)
    return ".".join(labels)


def url_host(url: str) -> str | None:
    """The host `url` reaches, in `canonical_host`'s spelling (user name and port aside);
    None when it names none, or none for certain."""
    try:
        parts = urlsplit(url)
        netloc, host = parts.netloc, parts.hostname
    except ValueError:  # an unbalanced `[` in the authority
        return None
    if not host or _UNSAFE_IN_AUTHORITY.search(netloc):
        return None
    return canonical_host(host)


def url_port(url: str) -> int | None:
    """The port `url` reaches: its own, else its scheme's (None for a port that is no port)."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        return None
    if port is not None:
        return port
    return {"http": 80, "https": 443}.get(parts.scheme.lower())
