"""An OpenAI-compatible endpoint's cache reads in the ledger: the count its usage gives
(`prompt_tokens_details.cached_tokens`, in a stream's final usage chunk asked for with
`stream_options.include_usage`), or, when it says nothing of them, an estimate of OpenAI's
automatic cache (the previous prompt, from 1024 tokens, in steps of 128); each model call says
which (`cache_reads`). `tether -p` against the fake server on the OpenAI wire, its simulated
prompt cache."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tether.testing import FakeModelServer, text, tool_use
from tether.testing.cli_runner import CliResult

from .conftest import rows

Run = Callable[..., CliResult]
COLUMNS = ("model", "input_tokens", "cache_read_tokens", "cache_write_tokens", "cache_reads")


def _session(fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", f"{fake_model.url}/v1")
    fake_model.script(tool_use("Bash", command="echo hi"), text("done"))
    result = tether("-p", "say hi", "--model", "openai/gpt-4o-mini")
    assert result.exit_code == 0, result.stderr
    for request in fake_model.requests:
        assert request.body["stream_options"] == {"include_usage": True}


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


def test_cache_reads_an_endpoint_says_nothing_of_are_estimated_and_said_so(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_model.openai_cache_details = False  # as llama.cpp's server and older vLLM answer
    _session(fake_model, tether, monkeypatch)
    first, second = (_prompt(r.usage) for r in fake_model.requests)
    assert first >= 1024
    read = first - first % 128  # the first prompt, a prefix of the second
    assert _calls() == [
        ("gpt-4o-mini", first, 0, 0, "estimated"),
        ("gpt-4o-mini", second - read, read, 0, "estimated"),
    ]
