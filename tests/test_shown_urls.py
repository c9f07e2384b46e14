"""`shown_url`: what of a URL a message may show."""

from __future__ import annotations

import pytest

from tether.shown_urls import shown_url


@pytest.mark.parametrize(
    ("url", "path", "shown"),
    [
        (
            "https://bob:pw@hooks.example:8443/T0/B1/XyZ?token=t#f",
            False,
            "https://hooks.example:8443",
        ),
        ("https://bob:pw@api.example/v1?api-key=k", True, "https://api.example/v1"),
        ("http://[::1]:9/x?sig=s", False, "http://[::1]:9"),
        ("http://h:notaport/x", False, "<unreadable URL>"),
        ("http://[oops/x?key=k", True, "<unreadable URL>"),
    ],
)
def test_credentials_query_and_fragment_never_show(url: str, path: bool, shown: str) -> None:
    assert shown_url(url, path=path) == shown
