"""An OpenAI-compatible endpoint's cache reads in the ledger: the count its usage gives
(`prompt_tokens_details.cached_tokens`, in a stream's final usage chunk asked for with
`stream_options.include_usage`), or, when it says nothing of them, none: the call is priced
as the endpoint answered (plain input), as the session's own total is, and what OpenAI's
automatic cache may have saved (the previous prompt, from 1024 tokens, in steps of 128) is
estimated apart; each model call says which (`cache_reads`). `tether -p` against the fake
server on the OpenAI wire, its simulated prompt cache."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tether.ledger.meter import AUTO_CACHE_STEP
from tether.testing import FakeModelServer, text, tool_use
from tether.testing.cli_runner import CliResult

from .conftest import cost, cost_json, rows

Run = Callable[..., CliResult]
COLUMNS = ("model", "input_tokens", "cache_read_tokens", "cache_write_tokens", "cache_reads")


def _session(
    fake_model: FakeModelServer,
    tether: Run,
    monkeypatch: pytest.MonkeyPatch,
    model: str = "openai/gpt-4o-mini",
) -> dict[str, object]:
    """The session's `-p` json result."""
    monkeypatch.setenv("OPENAI_BASE_URL", f"{fake_model.url}/v1")
    fake_model.script(tool_use("Bash", command="echo hi"), text("done"))
    result = tether("-p", "say hi", "--model", model, "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    for request in fake_model.requests:
        assert request.body["stream_options"] == {"include_usage": True}
    return json.loads(result.stdout)


def _calls() -> list[tuple[object, ...]]:
    return [tuple(call[c] for c in COLUMNS) for call in rows("model_calls")]


def _prompt(usage: dict[str, int] | None) -> int:
    assert usage is not None
    return sum(usage[k] for k in ("input_tokens", "cache_read_input_tokens"))


def test_the_cache_reads_the_endpoint_reports_are_recorded_as_reported(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    _session(fake_model, tether, monkeypatch)
    said = [r.usage for r in fake_model.requests]
    assert [u["cache_read_input_tokens"] for u in said if u][1] > 0  # the cache was read
    assert _calls() == [
        ("gpt-4o-mini", u["input_tokens"], u["cache_read_input_tokens"], 0, "reported")
        for u in said
        if u is not None
    ]


def test_an_endpoint_saying_nothing_of_cache_reads_has_one_price_and_the_saving_apart(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_model.openai_cache_details = False  # as llama.cpp's server and older vLLM answer
    body = _session(fake_model, tether, monkeypatch)
    first, second = (_prompt(r.usage) for r in fake_model.requests)
    assert first >= 1024
    assert _calls() == [
        ("gpt-4o-mini", first, 0, 0, "unreported"),
        ("gpt-4o-mini", second, 0, 0, "unreported"),
    ]
    # the ledger's price is the session's own (-p json), with no cache read in either
    by_session = cost_json("--by", "session")
    assert by_session["total_usd"] == pytest.approx(body["total_cost_usd"], abs=1e-6)
    usage = body["usage"]
    assert isinstance(usage, dict)
    assert usage["cache_read_input_tokens"] == 0  # pyright: ignore[reportUnknownMemberType]
    # the possible saving, estimated apart: the first prompt read at the cache rate
    read = first - first % AUTO_CACHE_STEP
    saving = read * (0.15 - 0.075) / 1_000_000  # gpt-4o-mini: input, cached input per million
    assert by_session["cache_reads_unreported"] == {
        "calls": 2,
        "possible_saving_usd_estimated": pytest.approx(saving, abs=1e-12),
        "unpriced_calls": 0,
    }
    table = cost("--by", "session")
    assert table.exit_code == 0, table.stderr
    assert (
        "2 model call(s) to an endpoint that reports no cache reads: priced as plain input, as "
        "the session's own total is; a prompt cache may have saved up to "
        f"${saving:.4f} of it (estimated, not in the totals)"
    ) in " ".join(table.stdout.split())


def test_an_unpriced_model_saying_nothing_of_cache_reads_has_an_unknown_saving_not_zero(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "may have saved up to $0.0000" said no saving was possible; the price is what is unknown.
    fake_model.openai_cache_details = False
    _session(fake_model, tether, monkeypatch, model="openai/house-model-7")
    by_session = cost_json("--by", "session")
    assert by_session["cache_reads_unreported"] == {
        "calls": 2,
        "possible_saving_usd_estimated": 0,
        "unpriced_calls": 2,
    }
    table = cost("--by", "session")
    assert table.exit_code == 0, table.stderr
    said = " ".join(table.stdout.split())
    assert "house-model-7: 2 model call(s) at no known price, counted as $0" in said
    assert (
        "2 model call(s) to an endpoint that reports no cache reads, of a model with no known "
        "price: what a prompt cache may have saved on them is unknown"
    ) in said
    assert "may have saved up to" not in said
