"""A wait the endpoint asks for (`retry-after`) is honoured up to a cap and said while it
lasts; a longer one ends the call at once with an error naming it, instead of being cut to a
short backoff (an endpoint asking for an hour was tried again after 1.5 s, silently)."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from email.utils import formatdate

import pytest

from tether.testing import FakeModelServer, http_error, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_a_wait_longer_than_the_cap_ends_the_call_naming_it(
    fake_model: FakeModelServer, tether: Run, wire: str
) -> None:
    fake_model.script(http_error(429, retry_after_ms=3_600_000), reply(text("too soon")))
    model = ["--model", "gpt-4o"] if wire == "openai" else []
    result = tether("-p", "hi", *model)
    assert result.exit_code == 1, result.stderr
    assert result.stdout.startswith("API Error: Request rejected (429) \u00b7 "), result.stdout
    assert len(fake_model.requests) == 1  # not tried again
    assert result.stderr.count("it asks to wait 1 h before trying again") == 1, result.stderr
    assert "longer than tether waits (1 min): try again later" in result.stderr


def test_a_wait_within_the_cap_is_honoured_and_said(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.script(http_error(429, retry_after_ms=1_000), reply(text("after the wait")))
    result = tether("-p", "hi")
    assert (result.exit_code, result.stdout) == (0, "after the wait\n"), result.stderr
    assert len(fake_model.requests) == 2
    said = [line for line in result.stderr.splitlines() if "it asks to wait 1s" in line]
    assert len(said) == 1, result.stderr
    assert said[0].endswith("trying again then (attempt 2 of 11)")


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
def test_a_wait_given_as_an_http_date_is_honoured_and_said(
    fake_model: FakeModelServer, tether: Run, wire: str
) -> None:
    """RFC 9110 lets `retry-after` be a date: it was read as no wait (tried again at once,
    silently). The date is made as the answer is sent, 3 s ahead; the answer's own `date`
    (this second, whole seconds) is what it is read against."""
    fake_model.script(
        lambda _: http_error(429, retry_after=formatdate(time.time() + 3, usegmt=True)),
        reply(text("after the wait")),
    )
    model = ["--model", "gpt-4o"] if wire == "openai" else []
    result = tether("-p", "hi", *model)
    assert (result.exit_code, result.stdout) == (0, "after the wait\n"), result.stderr
    assert len(fake_model.requests) == 2
    said = [line for line in result.stderr.splitlines() if re.search("asks to wait [23]s", line)]
    assert len(said) == 1, result.stderr
    assert said[0].endswith("trying again then (attempt 2 of 11)")


@pytest.mark.parametrize("wire", ["anthropic", "openai"])
@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("inf", "it asks to wait more than a day before trying again"),
        ("1e400", "it asks to wait more than a day before trying again"),
        (
            "Fri, 31 Dec 9999 23:59:59 GMT",
            "it asks to wait more than a day (until 9999-12-31 23:59 UTC) before trying again",
        ),
        ("172800", "it asks to wait more than a day (until "),
    ],
)
def test_a_wait_too_long_to_count_in_hours_is_said_sensibly(
    fake_model: FakeModelServer, tether: Run, wire: str, asked: str, said: str
) -> None:
    """Not `inf h`, nor 69890515.1 h: beyond a day, the date the wait ends, if there is one."""
    fake_model.script(http_error(429, retry_after=asked), reply(text("too soon")))
    model = ["--model", "gpt-4o"] if wire == "openai" else []
    result = tether("-p", "hi", *model)
    assert result.exit_code == 1, result.stderr
    assert result.stdout.startswith("API Error: Request rejected (429) \u00b7 "), result.stdout
    assert result.stderr.count(said) == 1, result.stderr
    assert " h " not in result.stderr
    assert "inf" not in result.stderr
