"""An OpenAI-compatible endpoint that counts the reply's room in its window (vLLM refuses a
prompt and `max_tokens` that together pass it): with a window configured or learned, the
room asked for is cut to what the window leaves, and a refusal for that reason says so."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tether.core.sizing import REPLY_FLOOR
from tether.testing import FakeModelServer, text, tool_use
from tether.testing.cli_runner import CliResult
from tether.testing.validation import estimate_prompt_tokens

Run = Callable[..., CliResult]
WINDOW = 16384


def _room(body: dict[str, object]) -> int:
    room = body.get("max_tokens") or body.get("max_completion_tokens")
    assert isinstance(room, int)
    return room


def test_a_configured_window_leaves_the_reply_what_fits(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.context_window, fake_model.output_in_window = WINDOW, True
    fake_model.script(tool_use("Bash", command="echo hi"), text("fine"))
    settings = json.dumps({"contextWindow": WINDOW})
    result = tether("-p", "hi", "--model", "openai/gpt-5", "--settings", settings)
    assert (result.exit_code, result.stdout) == (0, "fine\n"), result.stderr
    assert fake_model.rejections == []
    for request in fake_model.requests:
        assert 1024 <= _room(request.body) <= WINDOW - estimate_prompt_tokens(request.body)


def test_a_window_learned_from_a_refusal_cuts_the_room_of_the_next_request(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.context_window, fake_model.output_in_window = WINDOW, True
    fake_model.expect_rejections = True
    fake_model.script(tool_use("Bash", command="echo hi"), text("fine"))
    result = tether("-p", "hi", "--model", "openai/qwen3-coder")
    assert (result.exit_code, result.stdout) == (0, "fine\n"), result.stderr
    assert len(fake_model.rejections) == 1  # the first, before the window was known
    assert "in the completion" in (fake_model.rejections[0].error or "")
    accepted = [r for r in fake_model.requests if r not in fake_model.rejections]
    assert len(accepted) == 2
    for request in accepted:
        assert _room(request.body) <= WINDOW - estimate_prompt_tokens(request.body)


def test_a_window_with_no_room_for_a_reply_names_max_output_tokens(
    fake_model: FakeModelServer, tether: Run
) -> None:
    fake_model.output_in_window, fake_model.expect_rejections = True, True
    fake_model.script(text("never"))
    tether("-p", "hi", "--model", "openai/qwen3-coder", "--tools", "Read")  # as the API counts it
    prompt = estimate_prompt_tokens(fake_model.requests[0].body)
    fake_model.reset()
    window = prompt + REPLY_FLOOR // 2  # the prompt fits, with less room than a reply needs
    fake_model.context_window = window
    fake_model.script(text("never"))
    settings = json.dumps({"contextWindow": window})
    result = tether(
        "-p", "hi", "--model", "openai/qwen3-coder", "--tools", "Read", "--settings", settings
    )
    assert result.exit_code == 1
    assert "maxOutputTokens" in result.stderr, result.stderr


def test_the_compaction_summary_request_leaves_the_reply_what_fits(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The summary request is fitted like the turn's: none is refused for its room."""
    window = 20000
    fake_model.context_window, fake_model.output_in_window = window, True
    fake_model.expect_rejections = True
    fake_model.script(*[text("fine")] * 6)
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(window))
    for prompt in ("x " * 16000, "/compact", "small2"):  # compacted on request: the sizer no
        # longer needs to at this size, now that a resumed session reads its size back
        flags = ("-p", prompt) if prompt.startswith("x") else ("-c", "-p", prompt)
        result = tether(*flags, "--model", "openai/gpt-test")
        assert result.exit_code == 0, (prompt[:8], result.stderr)
    summaries = [r for r in fake_model.requests if "replaced by a summary" in json.dumps(r.body)]
    assert summaries, "the history was expected to be compacted"
    assert "compaction failed" not in result.stderr
    assert fake_model.rejections == []
    for request in fake_model.requests:
        assert _room(request.body) <= window - estimate_prompt_tokens(request.body)
