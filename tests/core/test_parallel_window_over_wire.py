"""Many parallel tool calls in a small window: past what cutting strings and stubbing inputs
can do (the calls' ids and pairing alone are past the window), the exchange is folded into
notes in the request, every request fits, and the session continues and resumes. The fake
server enforces the window."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tether.testing import FakeModelServer, RecordedRequest, Reply, reply, text, tool_use
from tether.testing.cli_runner import CliResult

Run = Callable[..., CliResult]
WINDOW = 20_000


def _answer(request: RecordedRequest) -> Reply:
    if "is about to be replaced by a summary" in request.last_user_text():
        return reply(text("Summary: many globs were run."))
    return reply(text("fine"))


@pytest.mark.parametrize("model", ["claude-sonnet-4-5", "openai/gpt-4.1"])
def test_a_hundred_and_fifty_parallel_calls_fold_and_the_session_goes_on(
    fake_model: FakeModelServer, tether: Run, monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    monkeypatch.setenv("TETHER_CONTEXT_WINDOW", str(WINDOW))
    fake_model.context_window = WINDOW
    calls = [tool_use("Glob", pattern=f"nothing-{i}-" + "x" * 200) for i in range(150)]
    fake_model.script(reply(*calls))
    fake_model.responder = _answer
    first = tether("-p", "go", "--model", model)
    assert (first.exit_code, first.stdout) == (0, "fine\n"), first.stderr
    again = tether("-c", "-p", "and now?", "--model", model)
    assert (again.exit_code, again.stdout) == (0, "fine\n"), again.stderr
    assert fake_model.requests[-1].last_user_text().endswith("and now?")
    assert not fake_model.rejections
    assert "tool calls (150 Glob) were folded" in str(fake_model.requests[1].messages())
