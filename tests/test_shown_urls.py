"""`shown_url`: what of a URL a message may show."""

from __future__ import annotations

import pytest

from tether.shown_urls import shown_url, without_secrets


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


def test_a_librarys_message_loses_the_urls_secrets_and_keeps_its_words() -> None:
    url = "http://e:pa%24%24word@collector:4318/v1?token=abc123#a"
    said = (
        "Max retries exceeded with url http://e:pa%24%24word@collector:4318/v1/metrics"
        "?token=abc123#a (password pa$$word; token=abc123)"
    )
    assert without_secrets(said, url) == (
        "Max retries exceeded with url http://…collector:4318/v1/metrics…… (password …; …)"
    )
    # short query, fragment or user name: cut where the URL spells them, not from every word
    assert without_secrets("the collector at http://u@h/?x#a failed", "http://u@h/?x#a") == (
        "the collector at http://…h/…… failed"
    )
    assert without_secrets("anything", "http://[broken") == "anything"
