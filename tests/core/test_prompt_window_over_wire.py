"""A prompt known not to fit the window (past it even at the most characters a token takes)
is refused before anything is sent, with the message a refusal gives, and the session goes
on. The fake server enforces the window."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tether.testing import FakeModelServer, reply, text
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]
WINDOW = 20_000


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "openai/gpt-4.1"])
def test_a_prompt_past_the_window_is_refused_before_sending(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(WINDOW))
    fake_model.context_window = WINDOW
    fake_model.script(reply(text("first")), reply(text("after")))
    assert tether("-p", "hello", "--model", model).exit_code == 0
    big = "".join(f"Paragraph {i}. " + "words " * 40 + "\n" for i in range(800))  # ~200k chars
    refused = tether("-c", "-p", "--model", model, stdin=big)
    assert refused.exit_code == 1
    assert "Prompt is too long" in refused.stderr
    assert "send less" in refused.stderr
    assert len(fake_model.requests) == 1  # nothing sent for it
    again = tether("-c", "-p", "and now?", "--model", model)
    assert (again.exit_code, again.stdout) == (0, "after\n"), again.stderr
    assert fake_model.requests[-1].last_user_text().endswith("and now?")
    assert not fake_model.rejections
