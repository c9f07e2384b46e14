"""One spelling of a host for every comparison WebFetch and WebSearch make: permission rules,
the rule offered, redirects and domain lists agree that `Example.COM.` is `example.com`,
`bücher.example` is `xn--bcher-kva.example`, and `127.1` is `127.0.0.1`."""

from __future__ import annotations

import pytest

from tests.permissions.conftest import ContextFactory
from tether.permissions.engine import decide
from tether.permissions.rules import parse_rule
from tether.permissions.suggest import suggest_rule
from tether.protocol import ConfigError
from tether.web_hosts import canonical_host, url_host


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example./x",
        "https://EVIL.Example./x",
        "https://evil.example.:443/",
        "http://evil.example./",  # fetched over https: the same host
        "https://user@evil.example./",
    ],
)
def test_a_deny_rule_holds_for_every_spelling_of_its_host(
    url: str, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"deny": ["WebFetch(domain:evil.example)"]}})
    assert decide("WebFetch", {"url": url, "prompt": "p"}, ctx).behavior == "deny"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.1/",
        "http://2130706433/",
        "http://0x7f.0.0.1/",
        "http://0177.0.0.1/",
        "http://[::ffff:127.0.0.1]/",
        "http://127.0.0.1./",
    ],
)
def test_an_address_rule_holds_for_the_address_in_any_notation(
    url: str, make_ctx: ContextFactory
) -> None:
    ctx = make_ctx({"permissions": {"deny": ["WebFetch(domain:127.0.0.1)"]}})
    assert decide("WebFetch", {"url": url, "prompt": "p"}, ctx).behavior == "deny"


def test_rules_and_urls_meet_in_idna_and_a_rule_with_a_trailing_dot_matches(
    make_ctx: ContextFactory,
) -> None:
    ctx = make_ctx(
        {
            "permissions": {
                "allow": ["WebFetch(domain:Bücher.Example.)", "WebFetch(domain:*.Docs.example.)"]
            }
        }
    )
    for url in (
        "https://xn--bcher-kva.example/",
        "https://bücher.example/",
        "https://api.docs.example/",
    ):
        assert decide("WebFetch", {"url": url, "prompt": "p"}, ctx).behavior == "allow", url


def test_a_url_whose_host_parsers_could_read_differently_is_never_allowed_by_a_rule(
    make_ctx: ContextFactory,
) -> None:
    ctx = make_ctx({"permissions": {"allow": ["WebFetch(domain:docs.example)"]}})
    url = "https://evil.example\\@docs.example/"
    assert url_host(url) is None
    assert decide("WebFetch", {"url": url, "prompt": "p"}, ctx).behavior == "ask"


def test_the_rule_offered_names_the_host_in_its_one_spelling(make_ctx: ContextFactory) -> None:
    offered = suggest_rule("WebFetch", {"url": "https://Docs.Example./a"}, make_ctx())
    assert offered == "WebFetch(domain:docs.example)"


def test_a_rule_naming_no_host_is_refused_with_why() -> None:
    with pytest.raises(ConfigError) as raised:
        parse_rule("WebFetch(domain:exa mple.com)", "allow", source="test", project_root=None)
    assert str(raised.value) == (
        "test: 'exa mple.com' is not a host name or a host pattern in "
        "'WebFetch(domain:exa mple.com)'"
    )


@pytest.mark.parametrize(
    ("host", "spelt"),
    [
        ("Example.COM.", "example.com"),
        ("straße.de", "xn--strae-oqa.de"),
        ("2130706433", "127.0.0.1"),
        ("[::1]", "::1"),
        ("a..b", None),
        ("256.1.1.1", None),
        ("exa%6dple.com", None),
    ],
)
def test_canonical_host(host: str, spelt: str | None) -> None:
    assert canonical_host(host) == spelt
